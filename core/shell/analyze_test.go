package shell

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// render writes an analysis compactly: one "context: argv" per command.
func render(a *Analysis) []string {
	var out []string
	for _, c := range a.Commands {
		s := c.Context + ":"
		if len(c.Argv) > 0 {
			s += " " + strings.Join(c.Argv, " ")
		}
		for _, r := range c.Redirects {
			s += fmt.Sprintf(" [%s%s%s]", r.Fd, r.Op, r.Target)
		}
		out = append(out, s)
	}
	return out
}

func TestAnalyzeCommands(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{`a | b | c && (d; e) | f`, []string{"pipe: a", "pipe: b", "pipe: c", "subshell: d", "subshell: e", "pipe: f"}},
		{`sudo -u root env A=1 nohup timeout 5 rm -rf /`, []string{
			": sudo -u root env A=1 nohup timeout 5 rm -rf /", "wrapper:sudo: env A=1 nohup timeout 5 rm -rf /",
			"wrapper:env: nohup timeout 5 rm -rf /", "wrapper:nohup: timeout 5 rm -rf /", "wrapper:timeout: rm -rf /"}},
		{`echo "$(git rev-parse HEAD)" <(ls)`, []string{": echo  /dev/fd/63", "cmdsubst: git rev-parse HEAD", "procsubst: ls"}},
		{`f() { g | h; }`, []string{"pipe: g", "pipe: h"}},
		{`bash -c 'a; b' x y`, []string{": bash -c a; b x y", "wrapper:bash: a", "wrapper:bash: b"}},
		{`find . -name '*.go' -exec gofmt -l {} \; -o -execdir wc {} +`, []string{
			": find . -name *.go -exec gofmt -l {} ; -o -execdir wc {} +", "wrapper:find: gofmt -l {}", "wrapper:find: wc {}"}},
		{`xargs -I{} -P4 cp {} out/`, []string{": xargs -I{} -P4 cp {} out/", "wrapper:xargs: cp  out/"}},
		{`xargs -0`, []string{": xargs -0", "wrapper:xargs: echo"}},
		{`cmd > out.txt 2>&1 < in`, []string{": cmd [>out.txt] [2>&1] [<in]"}},
		{`{ a; } > log`, []string{": [>log]", ": a"}},
		{`"g"'i't st\atus`, []string{": git status"}},
		{`echo a{b,c}d`, []string{": echo abd acd"}},
		{`declare -x A=$(id)`, []string{": declare -x A=", "cmdsubst: id"}},
		{"cat <<EOF\n$(date)\nEOF", []string{": cat [<<]", "cmdsubst: date"}},
		{`time ls`, []string{"wrapper:time: ls"}},
		{`coproc cat`, []string{"coproc: cat"}},
		{`stdbuf -o L -e0 grep x`, []string{": stdbuf -o L -e0 grep x", "wrapper:stdbuf: grep x"}},
		{`env -u HOME -C /tmp ls`, []string{": env -u HOME -C /tmp ls", "wrapper:env: ls"}},
		{`command -v go`, []string{": command -v go", "wrapper:command: go"}},
		{`/usr/bin/sudo -E make`, []string{": /usr/bin/sudo -E make", "wrapper:sudo: make"}},
		{`su - postgres`, []string{": su - postgres"}},
		{`ls # rm -rf /`, []string{": ls"}},
	}
	for _, tc := range tests {
		a, err := Analyze(tc.line)
		if err != nil {
			t.Errorf("Analyze(%q): %v", tc.line, err)
			continue
		}
		if got := render(a); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Analyze(%q)\n got %q\nwant %q", tc.line, got, tc.want)
		}
		if len(a.Uncertain) > 0 {
			t.Errorf("Analyze(%q) uncertain: %q", tc.line, a.Uncertain)
		}
	}
}

func TestAnalyzePartialWords(t *testing.T) {
	a, _ := Analyze(`cp "$SRC" /tmp/$NAME.bak plain`)
	c := a.Commands[0]
	if want := []string{"cp", "", "/tmp/", "plain"}; !reflect.DeepEqual(c.Argv, want) {
		t.Fatalf("argv %q, want %q", c.Argv, want)
	}
	if want := []bool{false, true, true, false}; !reflect.DeepEqual(c.Partial, want) {
		t.Fatalf("partial %v, want %v", c.Partial, want)
	}
	if len(a.Uncertain) != 0 {
		t.Errorf("computed arguments made the line uncertain: %q", a.Uncertain)
	}
	a, _ = Analyze(`$EDITOR file`)
	if len(a.Uncertain) == 0 {
		t.Error("computed command name not uncertain")
	}
}

func TestAnalyzeUnparseable(t *testing.T) {
	a, err := Analyze(`echo "oops`)
	if err == nil || a == nil || len(a.Uncertain) == 0 {
		t.Fatalf("got %v, %+v; want an error and an uncertain analysis", err, a)
	}
	if !strings.Contains(err.Error(), "quoting") {
		t.Errorf("error does not say what to try: %v", err)
	}
}

func TestAnalyzeBounded(t *testing.T) {
	// Deep nesting and huge brace expansions stay bounded and say so.
	line := strings.Repeat("eval ", 20) + `rm -rf /`
	a, _ := Analyze(line)
	if len(a.Uncertain) == 0 {
		t.Error("20 nested evals not marked uncertain")
	}
	a, _ = Analyze(`echo {1..100000}{1..100000}`)
	if len(a.Commands) != 1 || len(a.Commands[0].Argv) > maxBraces+1 || len(a.Uncertain) == 0 {
		t.Errorf("brace bomb: %d args, uncertain %q", len(a.Commands[0].Argv), a.Uncertain)
	}
	var many strings.Builder
	for i := range maxCommands + 10 {
		fmt.Fprintf(&many, "a%d;", i) // one command listed twice is listed once
	}
	a, _ = Analyze(many.String())
	if len(a.Commands) != maxCommands || len(a.Uncertain) == 0 {
		t.Errorf("%d commands, uncertain %q", len(a.Commands), a.Uncertain)
	}
}

func TestANSIC(t *testing.T) {
	for in, want := range map[string]string{`\x72m`: "rm", `\162\155`: "rm", `a\nb`: "a\nb", `\u00e9`: "é", `\q`: `\q`, `\'`: "'"} {
		if got := ansiC(in); got != want {
			t.Errorf("ansiC(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzAnalyze(f *testing.F) {
	for _, h := range hostile {
		f.Add(h.line)
	}
	for _, o := range ordinary[:20] {
		f.Add(o)
	}
	f.Fuzz(func(t *testing.T, line string) {
		a, err := Analyze(line)
		if a == nil {
			t.Fatal("nil analysis")
		}
		if err != nil && len(a.Uncertain) == 0 {
			t.Fatalf("error %v without an uncertain reason", err)
		}
		for _, c := range a.Commands {
			if c.Partial != nil && len(c.Partial) != len(c.Argv) {
				t.Fatalf("partial %v does not match argv %q", c.Partial, c.Argv)
			}
		}
		Check(a, Config{Strict: true})
	})
}
