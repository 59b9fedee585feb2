package shell

import "strings"

// optionSpec is how a command takes its short options, for the commands whose options
// the analysis reads: which take a value (-t DIR, attached as -tDIR too), which take
// an optional value only when attached (sed -i.bak), which take none (and may be
// clustered: -vt DIR), and the long options that are another spelling of a short one.
type optionSpec struct {
	value, optional, flags string
	long                   map[string]string // --target-directory -> t
}

// optionSpecs: bash's builtins that set variables or run code by option, and the file
// tools whose target folder, script or output an option names. Every handler in this
// package reads the separate spelling (-t DIR); splitOptions gives it that spelling
// whatever was typed (red team: cp -t.git config, printf -va, mapfile -C'cmd',
// sed -ne'w FILE' went unread).
var optionSpecs = map[string]optionSpec{
	"printf":    {value: "v"},
	"read":      {value: "adinNptu", flags: "ers"},
	"mapfile":   {value: "dnOsuCc", flags: "t"},
	"readarray": {value: "dnOsuCc", flags: "t"},
	"hash":      {value: "p", flags: "rdlt"},
	"wait":      {value: "p", flags: "nf"},
	"env":       {value: "CuS", flags: "i0v"},
	"cp": {value: "tS", flags: "abdfHilLnPprRsTuvxZ",
		long: map[string]string{"--target-directory": "t", "--suffix": "S"}},
	"mv": {value: "tS", flags: "bfinTuvZ",
		long: map[string]string{"--target-directory": "t", "--suffix": "S"}},
	"install": {value: "gmotS", flags: "bcCdDpsTvZ",
		long: map[string]string{"--target-directory": "t", "--suffix": "S", "--group": "g", "--mode": "m", "--owner": "o"}},
	"ln": {value: "tS", flags: "bdfFinLPrsTv",
		long: map[string]string{"--target-directory": "t", "--suffix": "S"}},
	"sed": {value: "efl", optional: "i", flags: "nrEsuz",
		long: map[string]string{"--expression": "e", "--file": "f", "--line-length": "l"}},
	"patch": {value: "BdDFgioprVYz", flags: "bceEflnNRstTuvZ",
		long: map[string]string{"--output": "o", "--directory": "d", "--input": "i", "--reject-file": "r", "--prefix": "B", "--basename-prefix": "Y", "--suffix": "z"}},
}

// splitOptions rewrites argv's option words into their separate spelling where
// argv[0] is a command of optionSpecs: -vt/x as -v -t /x, --target-directory=/x and
// its unambiguous abbreviations as -t /x. A word with a letter the spec does not know
// is left as it is (the command rejects it), and so is everything after --.
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
			out = append(out, spec.longOption(a)...)
		default:
			out = append(out, spec.cluster(a)...)
		}
	}
	return out
}

// longOption is --name=value or --name (the value then comes next, as it stays) as
// the short option it spells, or a as it is.
func (spec optionSpec) longOption(a word) []word {
	name, val, hasVal := strings.Cut(a.s, "=")
	short := ""
	for long, s := range spec.long {
		if long == name {
			short = s
			break
		}
		if len(name) > 3 && strings.HasPrefix(long, name) {
			if short != "" && short != s {
				return []word{a} // ambiguous: the command refuses it
			}
			short = s
		}
	}
	if short == "" {
		return []word{a}
	}
	if hasVal {
		return []word{{s: "-" + short, known: true}, {s: val, known: true}}
	}
	return []word{{s: "-" + short, known: true}}
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
