package tty

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/agentbox/agentbox/core/policy"
)

const (
	up    = "\x1b[A"
	down  = "\x1b[B"
	enter = "\r"
	ctrlC = "\x03"
)

func TestChoose(t *testing.T) {
	opts := []Option{{Label: "PostgreSQL"}, {Label: "MySQL", Description: "the other one"}, {Label: "SQLite"}}
	cases := []struct {
		name  string
		q     Question
		keys  string
		want  Reply
		isErr bool
	}{
		{"enter takes the first", Question{Text: "db?", Options: opts}, enter, Reply{Selected: []int{0}}, false},
		{"arrows", Question{Text: "db?", Options: opts}, down + down + up + enter, Reply{Selected: []int{1}}, false},
		{"wraps around", Question{Text: "db?", Options: opts}, up + enter, Reply{Selected: []int{2}}, false},
		{"vi keys", Question{Text: "db?", Options: opts}, "jj" + enter, Reply{Selected: []int{2}}, false},
		{"number picks at once", Question{Text: "db?", Options: opts}, "3", Reply{Selected: []int{2}}, false},
		{"number out of range ignored", Question{Text: "db?", Options: opts}, "9" + enter, Reply{Selected: []int{0}}, false},
		{"default preselected", Question{Text: "db?", Options: opts, Default: "SQLite"}, enter, Reply{Selected: []int{2}}, false},
		{"multi: space toggles", Question{Text: "dbs?", Options: opts, Multi: true}, " " + down + down + " " + enter, Reply{Selected: []int{0, 2}}, false},
		{"multi: toggle twice", Question{Text: "dbs?", Options: opts, Multi: true}, "  " + enter, Reply{}, false},
		{"multi: numbers toggle", Question{Text: "dbs?", Options: opts, Multi: true}, "23" + enter, Reply{Selected: []int{1, 2}}, false},
		{"custom answer", Question{Text: "db?", Options: opts, Custom: true}, "4" + "Redis" + enter, Reply{Text: "Redis"}, false},
		{"custom via arrows", Question{Text: "db?", Options: opts, Custom: true}, up + enter + "Mongo\x7fDB" + enter, Reply{Text: "MongDB"}, false},
		{"ctrl-c cancels", Question{Text: "db?", Options: opts}, down + ctrlC, Reply{}, true},
		{"end of input cancels", Question{Text: "db?", Options: opts}, down, Reply{}, true},
		{"ctrl-c in custom text", Question{Text: "db?", Options: opts, Custom: true}, "4ab" + ctrlC, Reply{}, true},
	}
	for _, c := range cases {
		var out bytes.Buffer
		got, err := New(strings.NewReader(c.keys), &out).Ask(c.q)
		if c.isErr {
			if !errors.Is(err, ErrCancelled) {
				t.Errorf("%s: err %v, want ErrCancelled", c.name, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v %v, want %+v", c.name, got, err, c.want)
		}
		if !strings.Contains(out.String(), c.q.Text) || !strings.Contains(out.String(), "SQLite") {
			t.Errorf("%s: screen lacks the question: %q", c.name, out.String())
		}
	}
}

func TestText(t *testing.T) {
	cases := []struct{ keys, def, want string }{
		{"hello" + enter, "", "hello"},
		{enter, "dflt", "dflt"},
		{"héllo\x7f\x7fo wörld" + enter, "", "hélo wörld"},
		{"abc\x15xyz" + enter, "", "xyz"},
		{"a" + up + "b" + enter, "", "ab"},
	}
	for _, c := range cases {
		got, err := New(strings.NewReader(c.keys), &bytes.Buffer{}).Text("name?", c.def)
		if err != nil || got != c.want {
			t.Errorf("keys %q: %q %v, want %q", c.keys, got, err, c.want)
		}
	}
}

func TestAskPermission(t *testing.T) {
	p := policy.Prompt{
		Request:  policy.Request{Applet: "write", Summary: "overwrite /w/a.go (120 bytes)"},
		Decision: policy.Decision{Action: policy.Ask, Mode: policy.ModeDefault, Reason: "writing files needs approval"},
	}
	for keys, want := range map[string]policy.Answer{"1": policy.AllowOnce, "2": policy.AllowSession, "3": policy.Reject, down + enter: policy.AllowSession, ctrlC: policy.Reject} {
		var out bytes.Buffer
		got, err := New(strings.NewReader(keys), &out).AskPermission(context.Background(), p)
		if err != nil || got != want {
			t.Errorf("keys %q: %v %v, want %v", keys, got, err, want)
		}
		for _, s := range []string{"overwrite /w/a.go (120 bytes)", "mode default", "Allow for this session"} {
			if !strings.Contains(out.String(), s) {
				t.Errorf("screen lacks %q: %q", s, out.String())
			}
		}
	}
}

// FuzzKeys: any byte stream ends a question with a valid reply or ErrCancelled, and
// every selected index is an option's.
func FuzzKeys(f *testing.F) {
	for _, s := range []string{"\r", "\x1b[B\x1b[A \r", "3", "\x1b[1;5A\x1bOB\r", "4abc\x7f\r", "\x03", "\x1b", "\x1b[", "é\xff\r"} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, keys string, multi bool) {
		q := Question{Text: "q", Options: []Option{{Label: "a"}, {Label: "b"}, {Label: "c"}}, Multi: multi, Custom: true}
		r, err := New(strings.NewReader(keys), &bytes.Buffer{}).Ask(q)
		if err != nil {
			if !errors.Is(err, ErrCancelled) {
				t.Fatalf("error %v", err)
			}
			return
		}
		for _, i := range r.Selected {
			if i < 0 || i >= len(q.Options) {
				t.Fatalf("selected %d of %d options", i, len(q.Options))
			}
		}
	})
}

// What the agent chose is shown, never obeyed: escape sequences in a description or a
// command cannot erase or rewrite the question (a red team's finding).
func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"harmless":                             "harmless",
		"harmless\x1b[2K\r\x1b[1Aallow all?\a": `harmless\x1b[2K\x0d\x1b[1Aallow all?\x07`,
		"a\nb":                                 `a\x0ab`,
		"tab\there":                            "tab    here",
		"café ✓":                               "café ✓",
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Visible("x\u202ey"); !strings.Contains(got, `\u202e`) {
		t.Errorf("a bidi override is shown as is: %q", got)
	}
}
