package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
)

// Refusal is a call the policy will not let through. Code is the envelope's
// error_code: permission_denied, or needs_input when a person would have to be asked
// and none can be.
type Refusal struct {
	Code     string
	Text     string
	Decision Decision
}

func (r *Refusal) Error() string { return r.Text }

// Answer is a person's reply to a permission question.
type Answer int

// The answers.
const (
	Reject Answer = iota
	AllowOnce
	AllowSession
)

// Prompt is what a person is shown when a call needs approval.
type Prompt struct {
	Request  Request
	Decision Decision
	Parts    []string // the parts of the request that asked
}

// Asker asks a person (core/tty does it on /dev/tty).
type Asker interface {
	AskPermission(ctx context.Context, p Prompt) (Answer, error)
}

// Resolver says how an ask verdict is resolved for this call.
type Resolver struct {
	// Person: a person typed this call at a terminal (shell mode), so ask is allow.
	Person bool
	// Headless: nobody can be asked (AGENTBOX_HEADLESS=1 or no terminal): ask is a
	// needs_input refusal.
	Headless bool
	// HeadlessFunc, when set, is consulted instead of Headless, and only when a call
	// asks (it may open /dev/tty).
	HeadlessFunc func() bool
	// Asker asks when neither of the above holds; nil behaves as Headless.
	Asker Asker
	// Grants is the session's grant store; nil means no grants.
	Grants *Store
	// ConfigHint names the user config file in refusal texts.
	ConfigHint string
}

// IsHeadless reports whether no person can be asked: AGENTBOX_HEADLESS=1, or
// /dev/tty cannot be opened.
func IsHeadless(getenv func(string) string) bool {
	if v := getenv("AGENTBOX_HEADLESS"); v != "" && v != "0" && v != "false" {
		return true
	}
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return true
	}
	f.Close()
	return false
}

// Authorize decides a request and resolves ask: it loads the session's grants,
// consumes a once grant that allowed the call, asks a person when one can be asked
// and stores a session grant when the person gives one. A nil error means the call
// may run; otherwise the error is a *Refusal.
func (p *Policy) Authorize(ctx context.Context, req Request, res Resolver) (Decision, error) {
	// Grants only add allow rules, so a call allowed without them is allowed with them:
	// the common case (a read in the workspace) never touches the grant store.
	if d := p.Evaluate(req); d.Action == Allow {
		return d, nil
	}
	if res.HeadlessFunc != nil {
		res.Headless = res.HeadlessFunc()
	}
	q := *p
	for attempt := 0; ; attempt++ {
		if res.Grants != nil {
			rules, err := res.Grants.Rules()
			if err != nil {
				return Decision{Action: Deny, Reason: err.Error()}, &Refusal{Code: "io_error", Text: err.Error()}
			}
			q = *p.WithGrants(rules)
		}
		d := q.Evaluate(req)
		switch d.Action {
		case Allow:
			if d.Rule != nil && d.Rule.Once && res.Grants != nil {
				ok, err := res.Grants.Consume(d.Rule.Grant)
				if err != nil {
					return d, &Refusal{Code: "io_error", Text: err.Error(), Decision: d}
				}
				if !ok && attempt < 3 {
					continue // another call used the grant first: decide again without it
				}
			}
			return d, nil
		case Deny:
			return d, &Refusal{Code: "permission_denied", Text: DeniedText(req, d), Decision: d}
		}
		// Ask.
		switch {
		case res.Person:
			d.Action = Allow
			d.Reason += "; allowed because a person typed the command at a terminal"
			return d, nil
		case res.Headless || res.Asker == nil:
			d.Action = Deny
			return d, &Refusal{Code: "needs_input", Text: q.NeedsInputText(req, d, res.ConfigHint), Decision: d}
		}
		parts := make([]string, 0, len(d.Asks))
		for _, c := range d.Asks {
			parts = append(parts, c.Display)
		}
		ans, err := res.Asker.AskPermission(ctx, Prompt{Request: req, Decision: d, Parts: parts})
		if err != nil {
			d.Action = Deny
			return d, &Refusal{Code: "needs_input", Text: fmt.Sprintf("%s needs approval and asking failed: %v; %s", describe(req), err, "retry, or have the host grant it with `agentbox permit`"), Decision: d}
		}
		switch ans {
		case AllowOnce:
			d.Action = Allow
			d.Reason += "; the user allowed it once"
			return d, nil
		case AllowSession:
			d.Action = Allow
			d.Reason += "; the user allowed it for the session"
			if res.Grants != nil {
				var gs []Grant
				for _, c := range d.Asks {
					if s, ok := suggest(c); ok {
						gs = append(gs, Grant{Permission: s.Permission, Pattern: s.Pattern, Scope: "session", Description: req.Summary, Prompted: true})
					}
				}
				if _, err := res.Grants.Add(gs...); err != nil {
					d.Reason += " (but the grant could not be stored: " + err.Error() + ")"
				}
			}
			return d, nil
		}
		d.Action = Deny
		d.Reason = "the user rejected it"
		return d, &Refusal{Code: "permission_denied", Text: fmt.Sprintf("the user rejected %s; do not retry the same call: ask the user what to do instead, or try another approach", describe(req)), Decision: d}
	}
}

func describe(req Request) string {
	if req.Summary != "" {
		return req.Summary
	}
	if req.Target != "" {
		return fmt.Sprintf("%s %s", req.Applet, req.Target)
	}
	return req.Applet
}

// DeniedText is the fixed refusal text for a deny verdict.
func DeniedText(req Request, d Decision) string {
	what := describe(req)
	if d.Part != "" && d.Part != req.Target {
		what += fmt.Sprintf(" (the part %q)", d.Part)
	}
	return fmt.Sprintf("permission denied: %s is refused by %s: %s. Do not retry it; choose another approach or ask the user to change that rule.", what, d.Source(), strings.TrimRight(d.Reason, "."))
}

// suggest is the narrowest rule that would allow one check: its exact target.
func suggest(c Check) (RuleSpec, bool) {
	perm := c.Applet
	if c.Capability == CapShellEnv && len(c.Argv) == 1 {
		return RuleSpec{Permission: CapShellEnv, Pattern: escapeGlob(c.Argv[0]), Action: "allow"}, true
	}
	if k, known := appletKind(perm); !known || k != c.kind {
		// A part of another kind than the applet's own (a redirection of a bash line,
		// the file fetch downloads to) is granted by its capability: fs.write.
		perm = c.Capability
	}
	if perm == "" {
		return RuleSpec{}, false
	}
	s := RuleSpec{Permission: perm, Action: "allow"}
	switch c.kind {
	case kindPath:
		if c.Path == "" {
			return RuleSpec{}, false
		}
		s.Pattern = escapeGlob(c.Path)
	case kindCommand:
		if c.Uncertain || len(c.Argv) == 0 {
			return RuleSpec{}, false
		}
		s.Pattern = quoteArgv(c.Argv)
	case kindHost:
		s.Pattern = c.Host
		if c.Port != "" {
			s.Pattern += ":" + c.Port
		}
	}
	return s, true
}

// EscapeGlob quotes the glob characters of a literal path so it can be a pattern.
func EscapeGlob(p string) string { return escapeGlob(p) }

func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// NeedsInputText is the fixed needs_input text: the call needs approval, nobody can
// be asked, and here is exactly what would allow it (checked against this policy).
func (p *Policy) NeedsInputText(req Request, d Decision, userConfig string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "needs input: %s needs approval (%s: %s) and no one can be asked here (headless host: AGENTBOX_HEADLESS=1 or no terminal). Do not retry the same call. ", describe(req), d.Source(), d.Reason)
	var specs []RuleSpec
	var rules []*Rule
	ok := true
	for _, c := range d.Asks {
		s, good := suggest(c)
		if !good {
			ok = false
			break
		}
		if slices.Contains(specs, s) {
			continue // two checks of one target (patch reads and writes a file)
		}
		r, err := Compile(s.Permission, s.Pattern, Allow)
		if err != nil {
			ok = false
			break
		}
		r.Scope = ScopeUser
		specs, rules = append(specs, s), append(rules, r)
	}
	if ok && len(rules) > 0 {
		q := *p
		q.rules = append(append([]*Rule(nil), p.rules...), rules...)
		if q.Evaluate(req).Action == Allow {
			js, _ := json.Marshal(specs)
			where := "the user config"
			if userConfig != "" {
				where += " (" + userConfig + ")"
			}
			fmt.Fprintf(&b, "To allow it, the host or user can add to \"permissions\".\"rules\" of %s: %s, or grant it for this session: agentbox permit with the same permission and pattern.", where, js)
			if m := p.modeThatAllows(req); m != "" {
				fmt.Fprintf(&b, " Running with --mode %s (AGENTBOX_MODE=%s) would allow it too.", m, m)
			}
			return b.String()
		}
	}
	if d.Rule != nil {
		fmt.Fprintf(&b, "No narrower rule can allow it while %s applies; the user would have to remove or change that rule", d.Rule)
	} else if d.Asks != nil && slices.ContainsFunc(d.Asks, func(c Check) bool { return c.Uncertain || slices.Contains(c.Partial, true) }) {
		b.WriteString("No rule can allow it as written (the command could not be fully analysed); rewrite it without computed parts ($VAR, $(...), eval)")
	} else {
		b.WriteString("No single rule can allow it as written; the user would have to allow it in the configuration")
	}
	if m := p.modeThatAllows(req); m != "" {
		fmt.Fprintf(&b, ", or run with --mode %s (AGENTBOX_MODE=%s).", m, m)
	} else {
		b.WriteString(".")
	}
	return b.String()
}

func (p *Policy) modeThatAllows(req Request) Mode {
	for _, m := range []Mode{ModeAcceptEdits, ModeBypass} {
		if p.Ceiling != "" && StricterMode(m, p.Ceiling) != m {
			break // no --mode can go past the ceiling
		}
		if m == p.Mode {
			continue // the mode it runs in is no advice (the call changed meanwhile)
		}
		q := *p
		q.Mode = m
		if q.Evaluate(req).Action == Allow {
			return m
		}
	}
	return ""
}

// NoOneToAsk reports whether an ask would be refused as needs_input (for callers
// that resolve ask themselves, such as the permit applet).
func (r Resolver) NoOneToAsk() bool {
	if r.HeadlessFunc != nil {
		return r.HeadlessFunc()
	}
	return r.Headless || r.Asker == nil
}
