package shell

import (
	"slices"
	"strings"
)

// optionSpec is how a command takes its options, for the commands whose options the
// analysis reads: which short options take a value (-t DIR, attached as -tDIR too),
// which take an optional value only when attached (sed -i.bak), which take none (and
// may be clustered: -vt DIR), and the long options whose abbreviations getopt_long
// accepts (--target-dir=D is --target-directory=D).
type optionSpec struct {
	value, optional, flags string
	long                   []string
}

// optionSpecs: bash's builtins that set variables or run code by option, and the file
// tools whose target folder, script or output an option names. Every handler in this
// package reads the separate short spelling (-t DIR) and the whole long name
// (--target-directory=DIR or --target-directory DIR); splitOptions gives it that
// spelling whatever was typed (red teams: cp -t.git config, printf -va, mapfile -C'cmd',
// sed -ne'w FILE', sort --outp=FILE, rsync --log-fi=FILE went unread).
var optionSpecs = map[string]optionSpec{
	"printf":    {value: "v"},
	"read":      {value: "adinNptu", flags: "ers"},
	"mapfile":   {value: "dnOsuCc", flags: "t"},
	"readarray": {value: "dnOsuCc", flags: "t"},
	"hash":      {value: "p", flags: "rdlt"},
	"wait":      {value: "p", flags: "nf"},
	"env":       {value: "CuS", flags: "i0v", long: []string{"--chdir", "--unset", "--split-string", "--ignore-environment"}},
	"cp":        {value: "tS", flags: "abdfHilLnPprRsTuvxZ", long: []string{"--target-directory", "--suffix", "--symbolic-link", "--link", "--recursive", "--remove-destination"}},
	"mv":        {value: "tS", flags: "bfinTuvZ", long: []string{"--target-directory", "--suffix"}},
	"install":   {value: "gmotS", flags: "bcCdDpsTvZ", long: []string{"--target-directory", "--suffix", "--group", "--mode", "--owner"}},
	"ln":        {value: "tS", flags: "bdfFinLPrsTv", long: []string{"--target-directory", "--suffix", "--symbolic"}},
	"sed":       {value: "efl", optional: "i", flags: "nrEsuz", long: []string{"--expression", "--file", "--line-length", "--in-place"}},
	"patch": {value: "BdDFgioprVYz", flags: "bceEflnNRstTuvZ",
		long: []string{"--output", "--directory", "--input", "--reject-file", "--prefix", "--basename-prefix", "--suffix"}},
	"sort": {value: "koStT", flags: "bcCdfghiMmnrRsuVz",
		long: []string{"--output", "--temporary-directory", "--random-source", "--files0-from", "--compress-program"}},
	"shuf": {value: "ino", flags: "erz", long: []string{"--output", "--random-source", "--input-range", "--head-count"}},
	"tar": {value: "bCfFgHIKLNTVX", flags: "AcdrtuxjJzZvpPkmOSWhlMBiGnaqsw",
		long: []string{"--directory", "--remove-files", "--file", "--to-command", "--checkpoint-action", "--use-compress-program",
			"--info-script", "--new-volume-script", "--rsh-command", "--index-file", "--files-from", "--extract", "--get",
			"--listed-incremental", "--snapshot", "--incremental"}},
	"wget": {value: "OoaPeiUn", flags: "qvNcrbkKmpS46xEHF",
		long: []string{"--output-document", "--output-file", "--append-output", "--directory-prefix", "--post-file",
			"--body-file", "--input-file", "--config", "--execute"}},
	// vim's clustered flags: -esc CMD is -e -s -c CMD (red team).
	"vim": vimOptions, "vi": vimOptions, "nvim": vimOptions, "ex": vimOptions, "view": vimOptions,
	// Their --command runs a script (red team: su --comm=CMD, script --comm=CMD).
	"su":      {long: []string{"--command", "--session-command", "--shell", "--group", "--supp-group", "--whitelist-environment"}},
	"runuser": {long: []string{"--command", "--session-command", "--shell", "--group", "--supp-group", "--user", "--whitelist-environment"}},
	"script":  {long: []string{"--command", "--echo", "--log-in", "--log-out", "--log-io", "--log-timing", "--logging-format"}},
	"strace":  {long: []string{"--output"}},
	// make's -E'TEXT' and --ev=TEXT are --eval (the thirteenth red team).
	"make":  makeOptions,
	"gmake": makeOptions, "remake": makeOptions,
	// gpg takes abbreviations of its long options too (--outp=F).
	"gpg": gpgOptions, "gpg2": gpgOptions,
	// csplit's -f PREFIX and -b FORMAT name what it writes: -f$HOME/.bashr, --pref=.
	"csplit": {value: "bfn", flags: "kszq", long: []string{"--prefix", "--suffix-format", "--digits", "--keep-files",
		"--suppress-matched", "--quiet", "--silent", "--elide-empty-files"}},
	"rsync": {value: "eBfTM", flags: "vqcarRbulLkKHpEAXogDtUNOJSnWxzPhiCFm08s",
		long: []string{"--log-file", "--remove-source-files", "--rsh", "--rsync-path", "--temp-dir", "--backup-dir",
			"--partial-dir", "--files-from", "--password-file", "--write-batch", "--only-write-batch", "--read-batch",
			"--compare-dest", "--copy-dest", "--link-dest", "--exclude-from", "--include-from"}},
}

// gpgOptions are gpg's, the long ones that name files among the common ones.
var gpgOptions = optionSpec{value: "oruRz", flags: "sedcbkKavqnt", long: []string{"--output", "--log-file", "--logger-file",
	"--status-file", "--attribute-file", "--homedir", "--passphrase-file", "--recipient", "--local-user", "--keyring",
	"--secret-keyring", "--trustdb-name", "--default-key", "--encrypt", "--decrypt", "--sign", "--armor", "--batch",
	"--yes", "--import", "--export", "--verify", "--list-keys", "--list-secret-keys", "--status-fd", "--logger-fd"}}

// makeOptions are make's (and gmake's, remake's).
var makeOptions = optionSpec{value: "CEfIoW", flags: "bBdeiknpqrRsStvw", long: []string{"--eval", "--file", "--makefile",
	"--directory", "--include-dir", "--old-file", "--assume-old", "--what-if", "--new-file", "--assume-new",
	"--environment-overrides", "--debug", "--jobs", "--load-average", "--output-sync", "--shuffle"}}

// vimOptions are vim's (and vi's, nvim's, ex's): -s is ex mode's silent flag here.
var vimOptions = optionSpec{value: "cStTquiUwW", flags: "eEsbdhlLmMnNRxyZAFHDgfpoOV"}

// splitOptions rewrites argv's option words into the spelling the handlers read where
// argv[0] is a command of optionSpecs: -vt/x as -v -t /x, --target-dir=/x as
// --target-directory=/x. A word with a letter the spec does not know is left as it is
// (the command rejects it), and so is everything after --.
func splitOptions(argv []word) []word {
	spec, ok := optionSpecs[base(argv[0].s)]
	if !ok || !argv[0].known {
		return argv
	}
	out := make([]word, 0, len(argv)+2)
	out = append(out, argv[0])
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case !a.known || len(a.s) < 2 || a.s[0] != '-':
			out = append(out, a)
		case a.s == "--":
			return append(out, argv[i:]...)
		case strings.HasPrefix(a.s, "--"):
			out = append(out, spec.longOption(a))
		default:
			out = append(out, spec.cluster(a)...)
		}
	}
	return out
}

// longOption is an abbreviated long option (--outp=F, --outp) as its whole name, or a
// as it is: a name the spec does not know, or one that starts two of its names.
func (spec optionSpec) longOption(a word) word {
	name, val, hasVal := strings.Cut(a.s, "=")
	if len(name) < 3 || slices.Contains(spec.long, name) {
		return a
	}
	whole := ""
	for _, l := range spec.long {
		if strings.HasPrefix(l, name) {
			if whole != "" {
				return a // ambiguous: the command refuses it
			}
			whole = l
		}
	}
	if whole == "" {
		return a
	}
	if hasVal {
		whole += "=" + val
	}
	return word{s: whole, known: true}
}

// cluster is -abc as -a -b -c, a letter that takes a value ending it with the rest of
// the word as that value (-tDIR), or a as it is when it holds a letter the spec does
// not know.
func (spec optionSpec) cluster(a word) []word {
	var out []word
	for k := 1; k < len(a.s); k++ {
		c := a.s[k]
		opt := word{s: "-" + string(c), known: true}
		switch {
		case strings.IndexByte(spec.value, c) >= 0:
			out = append(out, opt)
			if k+1 < len(a.s) {
				out = append(out, word{s: a.s[k+1:], known: true})
			}
			return out
		case strings.IndexByte(spec.optional, c) >= 0:
			return append(out, word{s: "-" + a.s[k:], known: true})
		case strings.IndexByte(spec.flags, c) >= 0:
			out = append(out, opt)
		default:
			return []word{a}
		}
	}
	return out
}
