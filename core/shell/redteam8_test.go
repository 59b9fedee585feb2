package shell

import (
	"slices"
	"strings"
	"testing"
)

// The eighth red team of the gate (session 37): lines that ran another command than the
// analysis saw, each now read as bash reads it or refused as unknown.
func TestEighthRedTeam(t *testing.T) {
	unknown := []string{
		// ${a[k]:=v} assigns, BASH_CMDS and BASH_ALIASES included.
		`echo ${BASH_CMDS[ls]:=/usr/bin/rm}; ls f`,
		"echo \"${BASH_ALIASES[ls]:=rm -rf}\"\nls f",
		`r=x; echo ${!r:=rm}`,
		// Single quotes in a double-quoted ${x:-...} do not quote.
		`echo "${x:-'$(rm f)'}"`, `echo "${x:-$'\x24\x28rm f\x29'}"`, `x=1; echo "${x:+'$(rm f)'}"`,
		"echo \"${x:-'`rm f`'}\"", `echo "${y:-${x:-'$(rm f)'}}"`, "cat <<E\n${x:-'$(rm f)'}\nE",
		`echo $(( ${x:-'$(rm f)'} ))`, `a[${x:-'$(rm f)'}]=1`, `echo "${x:?'$(rm f)'}"`,
		// Options with their values attached.
		`a=ls; printf -va %s rm; $a f`, `a=ls; read -aa <<< rm; $a f`, `a=ls; read -ra a <<< rm; $a f`,
		`printf -vBASH_CMDS[ls] %s /bin/rm`,
		// An arithmetic assignment (it crashed the analysis: x was taken for a number).
		`x=ls; echo $((x=1)); $x f`,
	}
	for _, line := range unknown {
		a, _ := Analyze(line)
		if a == nil || len(a.Unknown) == 0 {
			t.Errorf("%q: not refused as unknown", line)
		}
	}
	// What each line runs, option values attached or not.
	runs := map[string]string{
		"mapfile -C'rm f' -c1 a <<< x":      "rm f",
		"hash -p/bin/rm ls; ls f":           "/bin/rm f",
		"env -iC/tmp rm f":                  "rm f",
		"echo x\nrm -rf f\necho \"unclosed": "rm -rf f", // bash runs the commands before the one it cannot parse
	}
	for line, want := range runs {
		a, _ := Analyze(line)
		var got []string
		for _, c := range a.Commands {
			got = append(got, strings.Join(c.Argv, " "))
		}
		if !slices.Contains(got, want) {
			t.Errorf("%q: commands %q, want %q among them", line, got, want)
		}
	}
	// Single quotes that quote: outside ${x:-...}, and in ${x/a/'...'} and ${x#'...'}.
	for _, line := range []string{`echo "${x/a/'$(rm f)'}"`, `echo "${x#'$(rm f)'}"`, `echo '$(rm f)'`, `echo "${x:-'plain'}"`} {
		if a, _ := Analyze(line); len(a.Unknown) > 0 {
			t.Errorf("%q: refused: %q", line, a.Unknown)
		}
	}
}

// A command's cd for what it runs (env -C, sudo -D) holds for a shell it starts too.
func TestWrapperDirForScripts(t *testing.T) {
	a, _ := AnalyzeIn(`env -C /tmp sh -c 'rm -rf x'`, Context{Dir: "/work"})
	for _, c := range a.Commands {
		if c.Argv[0] == "rm" && c.Dir != "/tmp" {
			t.Errorf("rm runs in %q, want /tmp", c.Dir)
		}
	}
}

func TestSplitOptions(t *testing.T) {
	for in, want := range map[string]string{
		"cp -vt/x a":                   "cp -v -t /x a",
		"cp --target-directory=/x a":   "cp -t /x a",
		"cp --target-dir=/x a":         "cp -t /x a",
		"mv -t. a":                     "mv -t . a",
		"sed -ne'w f' x":               "sed -n -e w f x",
		"sed -i.bak -es/a/b/ x":        "sed -i.bak -e s/a/b/ x",
		"sed --expression=p x":         "sed -e p x",
		"printf -vx %s y":              "printf -v x %s y",
		"read -ra x":                   "read -r -a x",
		"env -iC/tmp ls":               "env -i -C /tmp ls",
		"cp -Q a b":                    "cp -Q a b", // an option cp does not have: left as typed
		"cp -- -t/x b":                 "cp -- -t/x b",
		"ls -t/x":                      "ls -t/x", // not a command of the table
		"patch -o/tmp/out -p1":         "patch -o /tmp/out -p 1",
		"install -m644 -t/x a":         "install -m 644 -t /x a",
		"hash -p/bin/rm ls":            "hash -p /bin/rm ls",
		"mapfile -C'x' -c1 a":          "mapfile -C x -c 1 a",
		"wait -pv":                     "wait -p v",
		"cp --ta=/x a":                 "cp -t /x a",
		"cp --s=.b a b":                "cp --s=.b a b", // too short to be an abbreviation here
		"cp --target-directory /x a":   "cp -t /x a",
		"cp -t":                        "cp -t",
		"sed -i -e p x":                "sed -i -e p x",
		"sed -ie p x":                  "sed -ie p x", // GNU sed: -i with the suffix e
		"printf --vx":                  "printf --vx",
		"read -a":                      "read -a",
		"env --chdir=/x ls":            "env --chdir=/x ls", // env's long options are read by its own handler
		"install --mode=600 --owner=u": "install -m 600 -o u",
	} {
		var argv []word
		for _, f := range strings.Fields(strings.NewReplacer("'", "").Replace(in)) {
			argv = append(argv, word{s: f, known: true})
		}
		if in == "sed -ne'w f' x" {
			argv = []word{{s: "sed", known: true}, {s: "-new f", known: true}, {s: "x", known: true}}
		}
		var got []string
		for _, w := range splitOptions(argv) {
			got = append(got, w.s)
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("%s: %q, want %q", in, g, want)
		}
	}
}

func TestIsGlob(t *testing.T) {
	for s, want := range map[string]bool{"[": false, "]": false, "[[": false, "a": false, "*": true, "a?": true, "[ab]": true, "x[": false, "[a": false, "a]": false} {
		if IsGlob(s) != want {
			t.Errorf("IsGlob(%q) = %v", s, !want)
		}
	}
}
