package policy

import (
	"path"
	"strings"
	"sync"

	fuzzy "github.com/agentbox/agentbox/core/suggest"
)

// globalOptions lists, for the common tools that take options before their subcommand,
// which of those options take a value (in the next word, or after "=" / glued to a short
// flag). A deny or ask rule on `git push` must hold for `git -C . push`, `git -c a=b
// push` and `git --no-pager push`: the command is matched a second time with these
// options taken out. Options not listed that start with "-" are skipped as flags.
var globalOptions = map[string]map[string]bool{
	"git": {
		"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
		"--super-prefix": true, "--config-env": true, "--exec-path": false, "--attr-source": true,
		"--list-cmds": true,
	},
	"docker": {
		"-c": true, "--context": true, "-H": true, "--host": true, "-l": true, "--log-level": true,
		"--config": true, "--tlscacert": true, "--tlscert": true, "--tlskey": true,
	},
	"kubectl": {
		"-n": true, "--namespace": true, "--context": true, "--cluster": true, "--user": true,
		"--kubeconfig": true, "-s": true, "--server": true, "--token": true, "--as": true,
		"--as-group": true, "--request-timeout": true, "-v": true, "--v": true, "--cache-dir": true,
		"--certificate-authority": true, "--client-certificate": true, "--client-key": true,
		"--tls-server-name": true, "-l": false,
	},
	"npm": {
		"--prefix": true, "-C": true, "-w": true, "--workspace": true, "--userconfig": true, "--registry": true,
		"--loglevel": true, "--cache": true,
	},
	"cargo": {"-C": true, "--config": true, "-Z": true, "--color": true},
	"go":    {"-C": true},
}

// subcommandAliases are other spellings of a tool's subcommands that a deny rule on the
// plain one must see: docker's management commands (docker image push is docker push),
// npm's abbreviations (npm pub is npm publish).
var subcommandAliases = map[string]map[string]string{
	"docker": {"image push": "push", "image pull": "pull", "image rm": "rmi", "container rm": "rm",
		"container run": "run", "container exec": "exec", "container kill": "kill", "container stop": "stop",
		"system prune": "system prune", "builder prune": "builder prune"},
}

// synonyms are single subcommands that do what another does: git send-pack pushes.
var synonyms = map[string]map[string]string{"git": {"send-pack": "push"}}

// abbreviated are subcommands a tool accepts by a prefix (npm pu is npm publish); a
// deny rule on one also sees every prefix of it.
var abbreviated = map[string][]string{"npm": {"publish", "unpublish", "deprecate", "install", "uninstall"}}

// gitCommands are git's own subcommands. Another word in their place is an alias or a
// typo, and with help.autocorrect set (on the line or in a config the line cannot
// show) git runs the command it is closest to: git psuh pushes.
// Built on first use: start-up of every call pays for what init builds.
var gitCommands = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, c := range strings.Fields(`add am annotate apply archive bisect blame branch bugreport bundle cat-file
		check-attr check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool
		clean clone column commit commit-graph commit-tree config count-objects credential daemon describe diff
		diff-files diff-index diff-tree difftool fast-export fast-import fetch fetch-pack filter-branch
		for-each-ref for-each-repo format-patch fsck gc get-tar-commit-id grep gui hash-object help
		index-pack init instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit
		maintenance merge merge-base merge-file merge-tree mktag mktree multi-pack-index mv notes pack-objects
		pack-refs prune prune-packed pull push range-diff read-tree rebase receive-pack reflog remote repack
		replace request-pull rerere reset restore rev-list rev-parse revert rm send-email send-pack shortlog
		show show-branch show-index show-ref sparse-checkout stash status stripspace submodule switch
		symbolic-ref tag unpack-file unpack-objects update-index update-ref update-server-info upload-archive
		upload-pack var verify-commit verify-pack verify-tag version whatchanged worktree write-tree lfs
		flow annex`) {
		m[c] = true
	}
	return m
})

// commandVariant is argv with its partial flags, as a rule may see it.
type commandVariant struct {
	argv    []string
	partial []bool
}

// withoutGlobalOptions returns the forms of argv a deny or ask rule must also see: the
// global options between the command name and its subcommand taken out (git -C . push
// is git push); the same with every option the table does not know taken as one that
// has a value (kubectl --username u delete); git's -c alias.NAME=VALUE applied to the
// subcommand (git -c alias.p=push p is git push); and a tool's other spellings of a
// subcommand (docker image push, npm pub).
func withoutGlobalOptions(argv []string, partial []bool, aliases map[string]map[string]string) []commandVariant {
	var out []commandVariant
	if len(argv) == 0 {
		return []commandVariant{{argv, partial}}
	}
	if sub, ok := strings.CutPrefix(path.Base(argv[0]), "git-"); ok && sub != "" {
		// /usr/lib/git-core/git-push is git push.
		argv = append([]string{"git", sub}, argv[1:]...)
		if len(partial) > 0 {
			partial = append([]bool{false}, partial...)
		}
		out = append(out, commandVariant{argv, partial})
	}
	if path.Base(argv[0]) == "git" && gitAliasesUnknown(argv) {
		// --config-env=alias.p=VAR or -c include.path=FILE: the subcommand may be an
		// alias this line cannot show, so a deny rule on any subcommand may apply.
		if sub := firstNonOption(argv); sub > 0 {
			p := make([]bool, len(argv))
			p[sub] = true
			v := append([]string(nil), argv...)
			v[sub] = ""
			if a, pp, ok := stripGlobal(v, p, false); ok {
				v, p = a, pp
			}
			out = append(out, commandVariant{v, p})
		}
	}
	for _, unknownTakesValue := range []bool{false, true} {
		if a, p, ok := stripGlobal(argv, partial, unknownTakesValue); ok {
			out = append(out, commandVariant{a, p})
		}
	}
	if len(out) == 0 {
		out = append(out, commandVariant{argv, partial})
	}
	for _, v := range out {
		if len(v.argv) < 2 {
			continue
		}
		name := path.Base(v.argv[0])
		if value, ok := aliases[name][v.argv[1]]; ok && (name == "git" || name == "cargo") {
			// An alias from the tool's config files: git pp with [alias] pp = push.
			words := strings.Fields(strings.TrimPrefix(value, "!"))
			if strings.HasPrefix(value, "!") {
				out = append(out, commandVariant{argv: words})
			} else {
				out = append(out, commandVariant{argv: append(append([]string{v.argv[0]}, words...), v.argv[2:]...)})
			}
		}
		if name == "git" {
			if value, ok := gitAlias(argv, v.argv[1]); ok {
				words := strings.Fields(strings.TrimPrefix(value, "!"))
				if strings.HasPrefix(value, "!") {
					out = append(out, commandVariant{argv: words}) // a shell command
				} else {
					out = append(out, commandVariant{argv: append(append([]string{"git"}, words...), v.argv[2:]...)})
				}
			}
		}
		if len(v.argv) >= 3 {
			if sub, ok := subcommandAliases[name][v.argv[1]+" "+v.argv[2]]; ok {
				out = append(out, commandVariant{argv: append(append([]string{v.argv[0]}, strings.Fields(sub)...), v.argv[3:]...)})
			}
		}
		if s, ok := synonyms[name][v.argv[1]]; ok {
			out = append(out, commandVariant{argv: append([]string{v.argv[0], s}, v.argv[2:]...)})
		}
		for _, full := range abbreviated[name] {
			if v.argv[1] != "" && v.argv[1] != full && strings.HasPrefix(full, v.argv[1]) {
				out = append(out, commandVariant{argv: append([]string{v.argv[0], full}, v.argv[2:]...)})
			}
		}
		if sub := v.argv[1]; name == "git" && len(sub) >= 3 && !gitCommands()[sub] && !strings.HasPrefix(sub, "-") {
			for c := range gitCommands() {
				if fuzzy.EditDistance(sub, c) <= 2 {
					out = append(out, commandVariant{argv: append([]string{v.argv[0], c}, v.argv[2:]...)})
				}
			}
		}
	}
	return out
}

// gitAliasesUnknown reports a git command line that defines aliases this analysis
// cannot read: --config-env (the value is in a variable) of an alias, or an included
// config file (-c include.path=FILE, includeIf).
func gitAliasesUnknown(argv []string) bool {
	for i := 1; i < len(argv); i++ {
		w := argv[i]
		var kv string
		switch {
		case (w == "-c" || w == "--config-env") && i+1 < len(argv):
			kv = argv[i+1]
		case strings.HasPrefix(w, "--config-env="):
			kv = w[len("--config-env="):]
			w = "--config-env"
		case strings.HasPrefix(w, "-c") && len(w) > 2:
			kv = w[2:]
		default:
			if !strings.HasPrefix(w, "-") {
				return false
			}
			continue
		}
		k, _, _ := strings.Cut(kv, "=")
		k = strings.ToLower(k)
		if strings.HasPrefix(k, "include.") || strings.HasPrefix(k, "includeif.") || w == "--config-env" && strings.HasPrefix(k, "alias.") {
			return true
		}
	}
	return false
}

// firstNonOption is the index of git's subcommand, after its global options.
func firstNonOption(argv []string) int {
	if a, _, ok := stripGlobal(argv, nil, false); ok && len(a) > 1 {
		for i := len(argv) - len(a) + 1; i < len(argv); i++ {
			if argv[i] == a[1] {
				return i
			}
		}
	}
	for i := 1; i < len(argv); i++ {
		if !strings.HasPrefix(argv[i], "-") {
			return i
		}
	}
	return 0
}

// gitAlias is the value of alias.NAME set by -c on git's command line.
func gitAlias(argv []string, name string) (string, bool) {
	for i := 1; i < len(argv); i++ {
		w := argv[i]
		var kv string
		switch {
		case w == "-c" && i+1 < len(argv):
			kv = argv[i+1]
		case strings.HasPrefix(w, "-c") && len(w) > 2:
			kv = w[2:]
		default:
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if ok && strings.EqualFold(k, "alias."+name) {
			return v, true
		}
	}
	return "", false
}

// stripGlobal takes out the global options before the subcommand (see globalOptions);
// an option the table does not know takes the next word as its value when
// unknownTakesValue is set.
func stripGlobal(argv []string, partial []bool, unknownTakesValue bool) ([]string, []bool, bool) {
	if len(argv) < 2 {
		return argv, partial, false
	}
	opts, ok := globalOptions[path.Base(argv[0])]
	if !ok {
		return argv, partial, false
	}
	i := 1
	for i < len(argv) {
		w := argv[i]
		if w == "--" {
			i++
			break
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			if path.Base(argv[0]) == "cargo" && strings.HasPrefix(w, "+") {
				i++ // cargo +nightly build
				continue
			}
			break
		}
		name, _, glued := strings.Cut(w, "=")
		takesValue, known := opts[name]
		if !glued && !takesValue && len(name) > 2 && name[1] != '-' && opts[name[:2]] {
			glued = true // -C. or -cfoo=bar: a short option with its value attached
		}
		if !known && unknownTakesValue {
			takesValue = true
		}
		i++
		if takesValue && !glued {
			i++
		}
	}
	if i == 1 {
		return argv, partial, false
	}
	if i > len(argv) {
		i = len(argv)
	}
	out := append([]string{argv[0]}, argv[i:]...)
	var outPartial []bool
	if len(partial) > 0 {
		outPartial = append([]bool{partial[0]}, partialFrom(partial, i)...)
	}
	return out, outPartial, true
}

func partialFrom(partial []bool, i int) []bool {
	if i >= len(partial) {
		return nil
	}
	return partial[i:]
}
