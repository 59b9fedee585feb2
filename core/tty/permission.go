package tty

import (
	"context"
	"errors"
	"fmt"
	"strconv"
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
	lines = append(lines, fmt.Sprintf("\x1b[1magentbox %s wants to:\x1b[0m %s", p.Request.Applet, Visible(what)))
	if len(p.Parts) > 1 || len(p.Parts) == 1 && p.Parts[0] != p.Request.Target && p.Parts[0] != what {
		for _, part := range p.Parts {
			lines = append(lines, "  needs approval: "+Visible(part))
		}
	}
	lines = append(lines, "\x1b[2m("+Visible(p.Decision.Source()+": "+p.Decision.Reason)+")\x1b[0m")
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

// Visible writes the control characters of text the agent chose (a command, a task's
// description) as escapes, so they cannot move the cursor, erase or rewrite what the
// person is approving: ESC [2K is shown as \x1b[2K, a newline as \n.
func Visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString("    ")
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0x2028 || r == 0x2029 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
			fmt.Fprintf(&b, "\\x%02x", r)
			if r > 0xff {
				b.Reset()
				return strconv.QuoteToASCII(s)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
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
