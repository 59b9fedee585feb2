package policy

import (
	"path"
	"strings"
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
		"--prefix": true, "-w": true, "--workspace": true, "--userconfig": true, "--registry": true,
		"--loglevel": true, "--cache": true,
	},
	"cargo": {"-C": true, "--config": true, "-Z": true, "--color": true},
	"go":    {"-C": true},
}

// withoutGlobalOptions returns argv with the global options between the command name
// and its subcommand taken out, and whether there were any.
func withoutGlobalOptions(argv []string, partial []bool) ([]string, []bool, bool) {
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
		takesValue := opts[name]
		if !glued && !takesValue && len(name) > 2 && name[1] != '-' && opts[name[:2]] {
			glued = true // -C. or -cfoo=bar: a short option with its value attached
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
