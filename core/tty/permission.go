package tty

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentbox/agentbox/core/policy"
)

// AskPermission shows what a call will do and why it is asked, and returns the
// person's answer. It implements policy.Asker.
func (t *Term) AskPermission(_ context.Context, p policy.Prompt) (policy.Answer, error) {
	what := p.Request.Summary
	if what == "" {
		what = strings.TrimSpace(p.Request.Applet + " " + p.Request.Target)
	}
	var lines []string
	lines = append(lines, fmt.Sprintf("\x1b[1magentbox %s wants to:\x1b[0m %s", p.Request.Applet, what))
	if len(p.Parts) > 1 || len(p.Parts) == 1 && p.Parts[0] != p.Request.Target && p.Parts[0] != what {
		for _, part := range p.Parts {
			lines = append(lines, "  needs approval: "+part)
		}
	}
	lines = append(lines, "\x1b[2m("+p.Decision.Source()+": "+p.Decision.Reason+")\x1b[0m")
	fmt.Fprint(t.out, strings.Join(lines, "\r\n")+"\r\n")
	r, err := t.Choose(Question{Text: "Allow it?", Options: []Option{
		{Label: "Allow once"},
		{Label: "Allow for this session", Description: "same command or path, until the session ends"},
		{Label: "Reject", Description: "the agent is told you said no"},
	}})
	if errors.Is(err, ErrCancelled) {
		return policy.Reject, nil
	}
	if err != nil {
		return policy.Reject, err
	}
	switch r.Selected[0] {
	case 0:
		return policy.AllowOnce, nil
	case 1:
		return policy.AllowSession, nil
	}
	return policy.Reject, nil
}

// Asker opens /dev/tty for each question, so agentbox holds the terminal only while
// it asks. It implements policy.Asker.
type Asker struct{}

// AskPermission implements policy.Asker on /dev/tty.
func (Asker) AskPermission(ctx context.Context, p policy.Prompt) (policy.Answer, error) {
	t, err := Open()
	if err != nil {
		return policy.Reject, err
	}
	defer t.Close()
	return t.AskPermission(ctx, p)
}
