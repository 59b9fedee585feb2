package applets

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/coretest"
	"github.com/agentbox/agentbox/core/tty"
)

func TestAskAllKeys(t *testing.T) {
	a := &Ask{Questions: []AskQuestion{
		{Text: "DB?", Choices: []string{"PostgreSQL", "MySQL", "SQLite"}, Required: true},
		{Text: "Extras?", Options: []AskOption{{Label: "cache"}, {Label: "queue", Description: "jobs"}}, MultiSelect: true},
		{Text: "Notes?", DefaultValue: "none"},
		{Text: "Name?", Required: true},
	}}
	qs, problems, err := a.normalize()
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	// DB: down, Enter -> MySQL. Extras: Space on cache, down, Space on queue, Enter.
	// Notes: Enter takes the default. Name: Enter on empty is refused (required), then "Bo".
	keys := "\x1b[B\r" + " \x1b[B \r" + "\r" + "\r" + "Bo\r"
	got, err := askAll(tty.New(strings.NewReader(keys), &bytes.Buffer{}), qs)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"MySQL"}, {"cache", "queue"}, {"none"}, {"Bo"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := askAll(tty.New(strings.NewReader("\x1b[B\x03"), &bytes.Buffer{}), qs); err != tty.ErrCancelled {
		t.Errorf("Ctrl-C: %v", err)
	}
}

func TestAskValidation(t *testing.T) {
	env := coretest.Env(t, "ask")
	cases := []struct{ req, code string }{
		{`{}`, "at least one question"},
		{`{"questions":[{"text":"a","type":"MultiChoice"}]}`, "empty_choices"},
		{`{"questions":[{"text":"a"},{"text":"a"}]}`, "asked twice"},
		{`{"questions":[{"text":"a","type":"SingleChoice","multi_select":true,"choices":["x"]}]}`, "pick one"},
		{`{"questions":[{"text":"a","type":"Other"}]}`, "type"},
		{`{"questions":[{"header":"h"}]}`, "text"},
	}
	for _, c := range cases {
		_, cerr := coretest.Call(t, env, &Ask{}, c.req)
		if cerr == nil || cerr.Code != core.CodeInvalidParams || !strings.Contains(cerr.Message, c.code) {
			t.Errorf("%s: %v, want invalid_params mentioning %q", c.req, cerr, c.code)
		}
	}
	// Headless (coretest sets AGENTBOX_HEADLESS=1) without answers: needs_input.
	if _, cerr := coretest.Call(t, env, &Ask{}, `{"questions":[{"text":"a"}]}`); cerr == nil || cerr.Code != core.CodeNeedsInput {
		t.Errorf("headless: %v", cerr)
	}
}

// FuzzParseAnswers: host answers either fit the questions or yield validation problems.
func FuzzParseAnswers(f *testing.F) {
	for _, s := range []string{`[["a"],"b"]`, `{"Q1?":"x"}`, `{"answers":[["a","b"]]}`, `[null,[]]`, `[1]`, `{"nope":"x"}`, `"x"`, `[[["deep"]]]`} {
		f.Add(s)
	}
	a := &Ask{Questions: []AskQuestion{{Text: "Q1?", Choices: []string{"a", "b"}, Required: true}, {Text: "Q2?"}}}
	qs, _, err := a.normalize()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		answers, problems := parseAnswers(raw, qs)
		if len(problems) > 0 {
			for _, p := range problems {
				if p.Code == "" || p.Message == "" {
					t.Fatalf("problem without code or message: %+v", p)
				}
			}
			return
		}
		if len(answers) != len(qs) {
			t.Fatalf("%d answers for %d questions", len(answers), len(qs))
		}
		_ = validateAnswers(qs, answers)
	})
}
