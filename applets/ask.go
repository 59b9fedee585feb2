package applets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/policy"
	"github.com/agentbox/agentbox/core/tty"
)

// AskAnswersEnv is how a host with its own question UI passes the person's answers in:
// a JSON array with one entry per question ([["PostgreSQL"], ["fast", "cheap"], "free
// text"]) or an object keyed by question text ({"Which database?": "SQLite"}). They
// are validated exactly like answers typed at the terminal.
const AskAnswersEnv = "AGENTBOX_ASK_ANSWERS"

// Ask puts structured questions to the user (reference 000's ask_user_questions and
// reference 002's question tool, both shapes accepted) on /dev/tty, or takes the
// answers from the host.
type Ask struct {
	Questions []AskQuestion `json:"questions" type:"json" schema:"maxItems=20" help:"the questions, asked in order: each has text (or question), and choices (plain labels) or options (label + description) for a choice, type SingleChoice/MultiChoice/FreeText or multi_select, defaultValue, required, header"`
	Text      string        `json:"text" arg:"" optional:"" alias:"question" help:"a single question (shorthand for questions with one entry)"`
	Choices   []string      `json:"choices" help:"the choices of the single question; the user may also type an answer of their own"`
	Multi     bool          `json:"multi_select" alias:"multiSelect" help:"the single question allows several choices"`
	// Answers is shell-mode only (json:"-"): a model must never supply answers itself.
	Answers string `json:"-" name:"answers" help:"the answers, as JSON (see AGENTBOX_ASK_ANSWERS), for a host or script that asked the person itself"`
}

// AskQuestion is one question, in either dialect.
type AskQuestion struct {
	Text         string      `json:"text" alias:"question,prompt" schema:"required" help:"the question"`
	Header       string      `json:"header" help:"a short label shown above the question"`
	Type         string      `json:"type" enum:"SingleChoice,MultiChoice,FreeText," default:"" help:"SingleChoice, MultiChoice or FreeText (default: SingleChoice when there are choices, else FreeText)"`
	Choices      []string    `json:"choices" help:"the choices, as labels"`
	Options      []AskOption `json:"options" help:"the choices with descriptions"`
	MultiSelect  bool        `json:"multi_select" alias:"multiSelect" help:"several choices may be picked (same as type MultiChoice)"`
	DefaultValue string      `json:"defaultValue" alias:"default_value,default" help:"the default answer (FreeText) or the preselected choice"`
	Required     bool        `json:"required" help:"an answer must be given"`
}

// AskOption is a choice with a description (reference 002).
type AskOption struct {
	Label       string `json:"label" schema:"required" help:"what the user picks"`
	Description string `json:"description" help:"what picking it means"`
}

// AskResult holds the answers: one array per question, in order.
type AskResult struct {
	Answers   [][]string    `json:"answers"`
	Responses []AskResponse `json:"responses"`
	Source    string        `json:"source"` // terminal or host
}

// AskResponse pairs a question with its answer.
type AskResponse struct {
	Question string   `json:"question"`
	Answer   []string `json:"answer"`
	// Custom: the answer is not one of the choices (the user typed their own).
	Custom bool `json:"custom,omitempty"`
}

// AskProblem is one validation failure, with reference 000's codes.
type AskProblem struct {
	Code     string `json:"code"` // required_field_empty, too_many_selections, empty_choices, unknown_question
	Question string `json:"question,omitempty"`
	Message  string `json:"message"`
}

type askQ struct {
	AskQuestion
	labels []string
	kind   string // SingleChoice, MultiChoice, FreeText
}

func (a *Ask) normalize() ([]askQ, []AskProblem, error) {
	qs := a.Questions
	if a.Text != "" {
		qs = append(qs, AskQuestion{Text: a.Text, Choices: a.Choices, MultiSelect: a.Multi})
	}
	if len(qs) == 0 {
		return nil, nil, core.Errorf(core.CodeInvalidParams, "ask needs at least one question: pass questions, or text for a single one")
	}
	var out []askQ
	var problems []AskProblem
	seen := map[string]bool{}
	for _, q := range qs {
		if strings.TrimSpace(q.Text) == "" {
			return nil, nil, core.Errorf(core.CodeInvalidParams, "a question has no text; give every question its text")
		}
		if seen[q.Text] {
			return nil, nil, core.Errorf(core.CodeInvalidParams, "the question %q is asked twice; ask each question once", q.Text)
		}
		seen[q.Text] = true
		aq := askQ{AskQuestion: q, labels: slices.Clone(q.Choices)}
		for _, o := range q.Options {
			aq.labels = append(aq.labels, o.Label)
		}
		aq.kind = q.Type
		if aq.kind == "" {
			switch {
			case q.MultiSelect:
				aq.kind = "MultiChoice"
			case len(aq.labels) > 0:
				aq.kind = "SingleChoice"
			default:
				aq.kind = "FreeText"
			}
		}
		if q.MultiSelect && aq.kind == "SingleChoice" {
			return nil, nil, core.Errorf(core.CodeInvalidParams, "question %q has type SingleChoice and multi_select; pick one", q.Text)
		}
		if aq.kind != "FreeText" && len(aq.labels) == 0 {
			problems = append(problems, AskProblem{Code: "empty_choices", Question: q.Text, Message: "a " + aq.kind + " question needs at least one choice"})
		}
		out = append(out, aq)
	}
	return out, problems, nil
}

// Run implements core.Command.
func (a *Ask) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	qs, problems, err := a.normalize()
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		return nil, validationError("the questions cannot be shown", problems)
	}
	raw := a.Answers
	source := "host"
	if raw == "" {
		raw = env.Getenv(AskAnswersEnv)
	}
	var answers [][]string
	switch {
	case raw != "":
		answers, problems = parseAnswers(raw, qs)
		if len(problems) > 0 {
			return nil, validationError("the answers passed in ("+AskAnswersEnv+" or --answers) do not fit the questions", problems)
		}
	case env.Elicit != nil:
		source = "elicitation"
		if answers, err = askByElicitation(ctx, env, qs); err != nil {
			return nil, err
		}
	case policy.IsHeadless(env.Getenv):
		return nil, core.Errorf(core.CodeNeedsInput, "needs input: the question tool needs a person to answer and no one can be asked here (headless host: AGENTBOX_HEADLESS=1 or no terminal). Do not retry: continue with your best judgement and say which assumption you made. (A host with its own question UI passes the answers in %s.)", AskAnswersEnv)
	default:
		source = "terminal"
		answers, err = askOnTerminal(qs)
		if errors.Is(err, tty.ErrCancelled) {
			return nil, core.Errorf(core.CodeNeedsInput, "the user cancelled the questions (Ctrl-C) without answering; do not ask the same again: continue with your best judgement, or stop and wait for the user's instructions")
		}
		if err != nil {
			return nil, core.Errorf(core.CodeNeedsInput, "could not ask on the terminal: %v; continue with your best judgement", err)
		}
	}
	if problems := validateAnswers(qs, answers); len(problems) > 0 {
		return nil, validationError("the answers do not fit the questions", problems)
	}
	res := AskResult{Answers: answers, Source: source}
	for i := range answers {
		if answers[i] == nil {
			answers[i] = []string{}
		}
	}
	for i, q := range qs {
		custom := false
		for _, ans := range answers[i] {
			if len(q.labels) > 0 && !slices.Contains(q.labels, ans) {
				custom = true
			}
		}
		res.Responses = append(res.Responses, AskResponse{Question: q.Text, Answer: answers[i], Custom: custom})
	}
	return &core.Result{Data: res}, nil
}

func validationError(what string, problems []AskProblem) error {
	var parts []string
	for _, p := range problems {
		s := p.Code + ": " + p.Message
		if p.Question != "" {
			s += fmt.Sprintf(" (question %q)", p.Question)
		}
		parts = append(parts, s)
	}
	e := core.Errorf(core.CodeInvalidParams, "%s: %s", what, strings.Join(parts, "; "))
	e.Details = map[string]any{"validation_errors": problems}
	return e
}

// parseAnswers reads the host's answers: an array by position or an object by
// question text; each answer a string or an array of strings.
func parseAnswers(raw string, qs []askQ) ([][]string, []AskProblem) {
	bad := func(msg string) []AskProblem {
		return []AskProblem{{Code: "invalid_answers", Message: msg + `; pass a JSON array with one answer per question ([["a"], "text"]) or an object keyed by question text`}}
	}
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return nil, bad("not valid JSON: " + err.Error())
	}
	if m, ok := v.(map[string]any); ok {
		if inner, ok := m["answers"]; ok && len(m) == 1 {
			v = inner
		}
	}
	out := make([][]string, len(qs))
	one := func(x any) ([]string, bool) {
		switch t := x.(type) {
		case nil:
			return nil, true
		case string:
			if t == "" {
				return nil, true
			}
			return []string{t}, true
		case []any:
			var ss []string
			for _, e := range t {
				s, ok := e.(string)
				if !ok {
					return nil, false
				}
				ss = append(ss, s)
			}
			return ss, true
		}
		return nil, false
	}
	var problems []AskProblem
	switch t := v.(type) {
	case []any:
		for i, x := range t {
			if i >= len(qs) {
				problems = append(problems, AskProblem{Code: "unknown_question", Message: fmt.Sprintf("answer %d has no question (there are %d)", i+1, len(qs))})
				continue
			}
			ss, ok := one(x)
			if !ok {
				return nil, bad("answer " + strconv.Itoa(i+1) + " is not a string or an array of strings")
			}
			out[i] = ss
		}
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			i := slices.IndexFunc(qs, func(q askQ) bool { return q.Text == k })
			if i < 0 {
				problems = append(problems, AskProblem{Code: "unknown_question", Question: k, Message: "no question has this text"})
				continue
			}
			ss, ok := one(t[k])
			if !ok {
				return nil, bad(fmt.Sprintf("the answer to %q is not a string or an array of strings", k))
			}
			out[i] = ss
		}
	default:
		return nil, bad("the answers are neither an array nor an object")
	}
	return out, problems
}

func validateAnswers(qs []askQ, answers [][]string) []AskProblem {
	var problems []AskProblem
	for i, q := range qs {
		var a []string
		if i < len(answers) {
			a = answers[i]
		}
		nonEmpty := slices.ContainsFunc(a, func(s string) bool { return strings.TrimSpace(s) != "" })
		if q.Required && !nonEmpty {
			problems = append(problems, AskProblem{Code: "required_field_empty", Question: q.Text, Message: "this question needs an answer"})
		}
		if q.kind != "MultiChoice" && len(a) > 1 {
			problems = append(problems, AskProblem{Code: "too_many_selections", Question: q.Text, Message: fmt.Sprintf("a %s question takes one answer, got %d", q.kind, len(a))})
		}
	}
	return problems
}

// askOnTerminal asks every question on /dev/tty.
func askOnTerminal(qs []askQ) ([][]string, error) {
	t, err := tty.Open()
	if err != nil {
		return nil, err
	}
	defer t.Close()
	return askAll(t, qs)
}

func askAll(t *tty.Term, qs []askQ) ([][]string, error) {
	out := make([][]string, len(qs))
	for i, q := range qs {
		tq := tty.Question{Header: q.Header, Text: q.Text, Multi: q.kind == "MultiChoice", Custom: true, Default: q.DefaultValue}
		for _, c := range q.Choices {
			tq.Options = append(tq.Options, tty.Option{Label: c})
		}
		for _, o := range q.Options {
			tq.Options = append(tq.Options, tty.Option{Label: o.Label, Description: o.Description})
		}
		if len(qs) > 1 {
			tq.Text = fmt.Sprintf("(%d/%d) %s", i+1, len(qs), q.Text)
		}
		for {
			r, err := t.Ask(tq)
			if err != nil {
				return nil, err
			}
			var ans []string
			for _, idx := range r.Selected {
				ans = append(ans, tq.Options[idx].Label)
			}
			if strings.TrimSpace(r.Text) != "" {
				ans = append(ans, r.Text)
			}
			if len(ans) == 0 && q.Required {
				tq.Header = "An answer is required"
				continue
			}
			out[i] = ans
			break
		}
	}
	return out, nil
}

// RenderText implements core.TextRenderer.
func (r AskResult) RenderText(p *core.Printer) {
	for _, resp := range r.Responses {
		ans := strings.Join(resp.Answer, ", ")
		if ans == "" {
			ans = p.Dim("(no answer)")
		}
		p.Printf("%s\n  %s\n", resp.Question, ans)
	}
}

// askByElicitation puts the questions to the person as one form through the host (an MCP
// client's elicitation): a choice is a string or an array of strings from the labels,
// free text a string.
func askByElicitation(ctx context.Context, env *core.Env, qs []askQ) ([][]string, error) {
	props := map[string]any{}
	var required []any
	var msg strings.Builder
	msg.WriteString("The agent asks:")
	for i, q := range qs {
		key := fmt.Sprintf("q%d", i+1)
		fmt.Fprintf(&msg, "\n%d. %s", i+1, q.Text)
		prop := map[string]any{"type": "string", "title": q.Text}
		if q.Header != "" {
			prop["description"] = q.Header
		}
		switch {
		case q.kind == "MultiChoice":
			prop = map[string]any{"type": "array", "title": q.Text, "items": map[string]any{"type": "string", "enum": toAny(q.labels)}}
		case len(q.labels) > 0:
			prop["enum"] = toAny(q.labels)
		case q.DefaultValue != "":
			prop["default"] = q.DefaultValue
		}
		props[key] = prop
		if q.Required {
			required = append(required, key)
		}
	}
	schema := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		schema["required"] = required
	}
	action, content, err := env.Elicit(ctx, msg.String(), schema)
	if err != nil {
		return nil, core.Errorf(core.CodeNeedsInput, "could not ask the user through the host: %v; continue with your best judgement and say what you assumed", err)
	}
	if action != "accept" {
		return nil, core.Errorf(core.CodeNeedsInput, "the user chose %s instead of answering; do not ask the same again: continue with your best judgement, or stop and wait for the user's instructions", action)
	}
	answers := make([][]string, len(qs))
	for i := range qs {
		switch v := content[fmt.Sprintf("q%d", i+1)].(type) {
		case string:
			if v != "" {
				answers[i] = []string{v}
			}
		case []any:
			for _, x := range v {
				answers[i] = append(answers[i], fmt.Sprint(x))
			}
		}
	}
	return answers, nil
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
