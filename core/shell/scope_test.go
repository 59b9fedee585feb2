package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A subshell's assignments and cd are lost when it ends (red team: x=rm; (x=ls); $x
// ran rm while the analysis saw ls); a pipeline's last stage may keep them.
func TestSubshellScope(t *testing.T) {
	tests := []struct {
		line string
		want []string // the commands whose argv starts with x's value, in order
	}{
		{`x=rm; (x=ls); $x f`, []string{"rm f"}},
		{`x=rm; echo $(x=ls); $x f`, []string{"echo ", "rm f"}},
		{"x=rm; echo `x=ls`; $x f", []string{"echo ", "rm f"}},
		{`x=rm; x=ls | true; $x f`, []string{"true", "rm f"}},
		{`x=rm; true | x=ls; $x f`, []string{"true", "rm f", "ls f"}}, // lastpipe: either
		{`x=rm; x=ls & $x f`, []string{"rm f"}},
		{`x=rm; coproc { x=ls; }; $x f`, []string{"rm f"}},
		{`x=rm; bash -c 'x=ls'; $x f`, []string{"bash -c x=ls", "rm f"}},
		{`x=rm; eval 'x=ls'; $x f`, []string{"eval x=ls", "ls f"}}, // eval runs in the shell itself
		{`x=rm; (x=ls; $x f); $x g`, []string{"ls f", "rm g"}},
		{`for x in echo rm; do $x f; done`, []string{"echo f", "rm f"}},
		{`declare -l x=RM; $x f`, []string{"declare -l x=RM", "rm f"}},
		{`declare -u x; x=ls; $x f`, []string{"declare -u x", "LS f"}},
		{`declare -l x; declare +l x; x=RM; $x f`, []string{"declare -l x", "declare +l x", "RM f"}},
	}
	for _, tc := range tests {
		a, err := Analyze(tc.line)
		if err != nil {
			t.Fatalf("%q: %v", tc.line, err)
		}
		var got []string
		for _, c := range a.Commands {
			got = append(got, strings.Join(c.Argv, " "))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q:\n got %q\nwant %q", tc.line, got, tc.want)
		}
	}
}

// cd in a subshell leaves the line where it was; one that may or may not happen leaves
// it unknown.
func TestSubshellCd(t *testing.T) {
	w := t.TempDir()
	for _, d := range []string{".git", "sub"} {
		if err := os.Mkdir(filepath.Join(w, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for line, want := range map[string]string{
		`cd .git; (cd ..); touch config`:        w + "/.git",
		`cd .git; echo $(cd ..); touch config`:  w + "/.git",
		`(cd sub && make); touch x`:             w,
		`cd sub | true; touch x`:                w,
		`true | cd sub; touch x`:                "", // lastpipe may have moved
		`for d in a b; do cd $d; done; touch x`: "",
		`cd missing; touch x`:                   "", // a cd that fails leaves the shell where it was
		`cd missing || exit 1; touch x`:         w + "/missing",
		`cd missing && touch x`:                 w + "/missing",
		`rm -rf sub; cd sub; touch x`:           "", // the line may have removed it
	} {
		a, _ := AnalyzeIn(line, Context{Dir: w})
		last := a.Commands[len(a.Commands)-1]
		if last.Dir != want || (want == "") != last.DirUnknown {
			t.Errorf("%q: touch runs in %q (unknown %v), want %q", line, last.Dir, last.DirUnknown, want)
		}
	}
}

// Arithmetic evaluates a subscript in quoted text or in a variable's value, and the
// command substitution there runs: it is analysed, and a value the line cannot know
// makes the analysis uncertain (bash: [[ 'a[$(rm v)]' -eq 0 ]] removes v).
func TestArithmeticSubscripts(t *testing.T) {
	runs := []string{
		`[[ -v 'a[$(rm v)]' ]]`, `[[ 'a[$(rm v)]' -eq 0 ]]`, `[[ 1 -eq "a[\$(rm v)]" ]]`, `y=1; echo ${y:'a[$(rm v)]'}`,
		`a=(); a['$(rm v)']=1`, `x=([ 'a[$(rm v)]' ]=1)`, `declare 'a[$(rm v)]=1'`, `declare -i n; n='a[$(rm v)]'`,
		`(( 'a[$(rm v)]' ))`, `let 'a[$(rm v)]'`, `x='a[$(rm v)]'; (( x ))`, `x='a[$(rm v)]'; y=x; [[ y -gt 0 ]]`,
		`read 'a[$(rm v)]' < /dev/null`, `printf -v 'a[$(rm v)]' x`, `test -v 'a[$(rm v)]'`, `unset 'a[$(rm v)]'`,
		`getopts ab 'a[$(rm v)]'`, `echo ${a['$(rm v)']}`,
	}
	for _, line := range runs {
		a, _ := Analyze(line)
		if !slices.ContainsFunc(a.Commands, func(c SimpleCommand) bool { return slices.Equal(c.Argv, []string{"rm", "v"}) }) {
			t.Errorf("%q: rm v not found in %q", line, render(a))
		}
	}
	unknown := []string{
		`read x; (( x ))`, `read x; [[ $x -eq 0 ]]`, `read x; [[ x -lt 1 ]]`, `n=$(cat f); (( n > 3 ))`,
		`read i; echo ${a[$i]}`, `read o; echo ${s:$o}`, `read n; declare -i m; m=$n`, `read name; read "$name"`,
		`read x; a[x]=1`,
	}
	for _, line := range unknown {
		a, _ := Analyze(line)
		if !slices.Contains(a.Uncertain, arithUnknown) {
			t.Errorf("%q: not uncertain: %q", line, a.Uncertain)
		}
	}
	// What arithmetic computed, the loop's own counters and literal numbers are
	// numbers: nothing to run.
	plain := []string{
		`for ((i=0;i<3;i++)); do echo $i; done; (( i > 2 ))`, `(( $# > 0 )) && echo args`, `x=5; [[ $x -gt 3 ]]`,
		`n=0; (( n++ )); [[ n -eq 1 ]]`, `[[ 0x1f -eq 31 ]]`, `echo ${a[@]} ${b[0]} ${s:1:2}`, `read -p "go [y/n]? " ans`,
		`declare -i n=4; n=n+1`, `[[ $? -eq 0 ]]`, `(( RANDOM % 2 ))`, `read -r line`,
	}
	for _, line := range plain {
		a, _ := Analyze(line)
		if slices.Contains(a.Uncertain, arithUnknown) {
			t.Errorf("%q: uncertain", line)
		}
	}
}

// What may not run, or may not last, is added to what was known, never put in its
// place: a branch, a loop's body (two rounds, the third unknown), && and ||, a function's
// body, local, an assignment to a read-only variable, a trap or alias body (the second
// red team's lines, each read as ls while bash ran rm).
func TestBranchesJoin(t *testing.T) {
	ctx := Context{Dir: "/w", Getenv: func(string) (string, bool) { return "", false }}
	runsRm := []string{
		`x=rm; case a in b) x=ls;; esac; $x f`, `x=rm; for i in; do x=ls; done; $x f`, `x=rm; [[ a == b ]] && x=ls; $x f`,
		`x=rm; false || x=ls; $x f`, `x=rm; if [[ a == b ]]; then x=ls; elif true; then x=cat; else x=ls; fi; $x f`,
		`x=rm; while false; do x=ls; done; $x f`, `f() { local x=ls; }; x=rm; f; $x f`, `x=rm; f() { declare x=ls; }; f; $x f`,
		`true() { x=ls; }; x=rm; x=rm true; $x f`, `x=rm; local x=ls; $x f`, `readonly x=rm; declare x=ls; $x f`,
		`x=rm; readonly x; unset x; $x f`, `x=rm; f() { return; x=ls; }; f; $x f`, `x=rm; trap "x=ls" USR2; $x f`,
		`trap "x=rm" USR1; x=ls; kill -USR1 $$; $x f`, `x=ls; set -o posix; x=rm :; $x f`, `BASH_ARGV0=rm; $0 f`,
		`x=ls; for i in 1 2; do $x f; x=rm; done`, `x=ls; case a in a) x=rm ;& b) $x f;; esac`,
		`x=ls; y=cat; for i in 1 2 3; do $x f; x=$y; y=rm; done`,
	}
	for _, line := range runsRm {
		a, _ := AnalyzeIn(line, ctx)
		rm := slices.ContainsFunc(a.Commands, func(c SimpleCommand) bool { return len(c.Argv) > 0 && c.Argv[0] == "rm" })
		if !rm && len(a.Unknown) == 0 {
			t.Errorf("%q: rm neither found nor the name unknown: %q", line, render(a))
		}
	}
	// The path a && list took is known to its next command: cd ran if rm runs.
	a, _ := AnalyzeIn(`mkdir -p build && cd build && rm -rf ./out`, ctx)
	if last := a.Commands[len(a.Commands)-1]; last.Dir != "/w/build" || last.DirUnknown {
		t.Errorf("rm runs in %q (unknown %v), want /w/build", last.Dir, last.DirUnknown)
	}
	// After a cd that may not have run, the folder is not known.
	a, _ = AnalyzeIn(`cd /; [[ a == b ]] && cd /tmp; rm -rf *`, ctx)
	if last := a.Commands[len(a.Commands)-1]; !last.DirUnknown {
		t.Errorf("rm runs in %q, want unknown", last.Dir)
	}
}

// Bash's own evaluators run what a value holds: ${x@P} (after decoding \044 into $),
// ${!x} and declare -n (a subscript), PS4 under set -x, compgen -W. A known value has
// its commands analysed; one that cannot be known fails closed (the third red team's
// lines, allowed by echo's rule while they ran touch and rm).
func TestEvaluatorsOfValues(t *testing.T) {
	runs := []string{
		`x='\044(rm v)'; echo ${x@P}`, `x='\x24(rm v)'; y=$x; echo ${y@P}`, `x='a[$(rm v)]'; echo ${!x}`,
		`declare -n r='a[$(rm v)]'; r=1`, `PS4='$(rm v)'; set -x; true`, `compgen -W '$(rm v)' y`,
	}
	for _, line := range runs {
		a, _ := Analyze(line)
		if !slices.ContainsFunc(a.Commands, func(c SimpleCommand) bool { return slices.Equal(c.Argv, []string{"rm", "v"}) }) {
			t.Errorf("%q: rm v not found in %q", line, render(a))
		}
	}
	unknown := []string{
		`printf -v x "\x24(rm v)"; echo ${x@P}`, `x=$(cat f); echo ${!x}`, `read x; : ${!x:-}`, `read x; PS4=$x; set -x; true`,
		`read x; compgen -W "$x" y`, `read x; declare -n r=$x; echo $r`, `declare -n r; read x; r=$x; r=1`,
		`x=ls; ` + strings.Repeat(`[[ a == b ]] && x=$x$x; `, 40) + `$x`,
	}
	for _, line := range unknown {
		a, _ := Analyze(line)
		if len(a.Unknown) == 0 {
			t.Errorf("%q: not refused as unknown: %q", line, render(a))
		}
	}
	// A reference stands for its target: what is assigned through it, and declare -l
	// on it, are the target's.
	for _, line := range []string{`x=ls; declare -n r=x; r=rm; $x f`, `declare -n r=x; declare -l r; x=RM; $x f`, `declare -n r; r=x; declare -l r; x=RM; $x f`} {
		a, _ := Analyze(line)
		if !slices.ContainsFunc(a.Commands, func(c SimpleCommand) bool { return slices.Equal(c.Argv, []string{"rm", "f"}) }) {
			t.Errorf("%q: rm f not found in %q", line, render(a))
		}
	}
	// shift moves the positional parameters, in a function too.
	a, _ := Analyze(`f(){ shift; "$@" v; }; f x rm`)
	if !slices.ContainsFunc(a.Commands, func(c SimpleCommand) bool { return slices.Equal(c.Argv, []string{"rm", "v"}) }) {
		t.Errorf("shift in a function: %q", render(a))
	}
}

// shopt -s nocaseglob makes .GI[T]/CONFI[G] match .git/config: the analysis matches
// case-insensitively once the line may have turned it on.
func TestNoCaseGlob(t *testing.T) {
	if got := NoCase("/w/.GI[T]/c*"); got != "/[wW]/.[gG][iI][tT]/[cC]*" {
		t.Errorf("NoCase: %q", got)
	}
	for line, want := range map[string]bool{
		`shopt -s nocaseglob; echo x >> .GI[T]/CONFI[G]`:                 true,
		`[[ a == b ]] || shopt -s nocaseglob; echo x >> .GI[T]/CONFI[G]`: true,
		`shopt -s $x; echo x >> .GI[T]/CONFI[G]`:                         true,
		`echo x >> .GI[T]/CONFI[G]`:                                      false,
	} {
		a, _ := Analyze(line)
		if a.NoCaseGlob != want {
			t.Errorf("%q: NoCaseGlob %v", line, a.NoCaseGlob)
		}
	}
}

// A shell reads what feeds the statement that holds it: a group's or a function call's
// here-string, a descriptor an exec set up, a pipe into a group (the fourth red team's
// lines, each read as a bare bash).
func TestShellsFedFromAround(t *testing.T) {
	for _, line := range []string{
		`{ bash; } <<< 'rm v'`, `f(){ bash; }; f <<< 'rm v'`, `exec 3<<<'rm v'; bash <&3`, `exec <<<'rm v'; sh`,
		`echo 'rm v' | { bash; }`, `( sh ) <<< 'rm v'`, `ed -s <<< '!rm v'`,
	} {
		a, _ := Analyze(line)
		if !slices.ContainsFunc(a.Commands, func(c SimpleCommand) bool { return slices.Equal(c.Argv, []string{"rm", "v"}) }) {
			t.Errorf("%q: rm v not found in %q", line, render(a))
		}
	}
	for _, line := range []string{`bash <&5`, `fc -s -2`, `git --exec-path=. x`, `enable -f ./x.so x`, `cat f | { bash; }`} {
		if a, _ := Analyze(line); len(a.Unknown) == 0 {
			t.Errorf("%q: not refused as unknown: %q", line, render(a))
		}
	}
	a, _ := Analyze(`ed -s f <<< 'w .git/config'`)
	if !slices.ContainsFunc(a.Commands, func(c SimpleCommand) bool {
		return slices.ContainsFunc(c.Redirects, func(r Redirect) bool { return r.Target == ".git/config" })
	}) {
		t.Errorf("ed's w FILE is no write: %q", render(a))
	}
}
