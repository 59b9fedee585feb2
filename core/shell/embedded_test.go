package shell

import (
	"slices"
	"strings"
	"testing"
)

func TestSedRuns(t *testing.T) {
	for _, tc := range []struct {
		script       string
		cmds         []string
		patternSpace bool
	}{
		{"1e rm -rf ~", []string{"rm -rf ~"}, false},
		{"/x/{e date\n}", []string{"date"}, false},
		{"s/a/b/;$e touch x", []string{"touch x"}, false},
		{"s/^/echo /e", nil, true},
		{"s|e|E|g", nil, false},                // e inside the fields, not a flag
		{"s/a/b/w out.txt", nil, false},        // w's file name runs to the end of the line
		{"s/a/b/gw e.txt\ns/c/d/e", nil, true}, // the next line's s///e
		{"1i\\\ne not a command", nil, false},  // inserted text
		{"a hello e world", nil, false},        // appended text
		{"y/abc/xyz/", nil, false},             // transliteration
		{"/start/,/end/!e ls", []string{"ls"}, false},
		{"\\%e%e", nil, true}, // \%re% address, then e alone
		{"# e comment\np", nil, false},
		{"b end; e id\n:end", []string{"id"}, false},
	} {
		cmds, ps := sedRuns(tc.script)
		if !slices.Equal(cmds, tc.cmds) || ps != tc.patternSpace {
			t.Errorf("sedRuns(%q) = %q, %v; want %q, %v", tc.script, cmds, ps, tc.cmds, tc.patternSpace)
		}
	}
}

func TestMakeRecipes(t *testing.T) {
	got := makeRecipes("X := $(shell uname -s)\nall: dep ; @echo $$HOME $(X)\n\t-rm -f $@\nY = a:b")
	want := []string{"uname -s", "echo $HOME $1", "rm -f $1"}
	if !slices.Equal(got, want) {
		t.Errorf("makeRecipes = %q, want %q", got, want)
	}
}

func FuzzSedRuns(f *testing.F) {
	for _, s := range []string{"1e rm -rf ~", "s/a/b/e", "/x/{e ls\n}", "\\", "s", "y/a", "1,$!e", "a\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		cmds, _ := sedRuns(script)
		for _, c := range cmds {
			if !strings.Contains(script, c) {
				t.Fatalf("sedRuns(%q) found %q, which is not in the script", script, c)
			}
		}
	})
}

func FuzzMakeRecipes(f *testing.F) {
	for _, s := range []string{"all:\n\trm -rf $(D)", "x:=$(shell ls", "a: ; b", "$", "$(", "\t$$"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, r := range makeRecipes(text) {
			if strings.Contains(r, "$(") && !strings.Contains(text, "$$(") {
				t.Fatalf("makeRecipes(%q) left a make reference in %q", text, r)
			}
		}
	})
}
