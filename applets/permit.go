package applets

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/gate"
	"github.com/agentbox/agentbox/core/netguard"
	"github.com/agentbox/agentbox/core/policy"
	"github.com/agentbox/agentbox/core/shell"
)

// Permit asks the user for a permission ahead of the calls that need it (reference
// 000's ask_for_permissions), and inspects the policy: check evaluates a would-be
// call, list shows the rules and grants, revoke drops grants.
type Permit struct {
	Action      string            `json:"action" arg:"" optional:"" enum:"request,check,list,revoke" default:"request" help:"request: ask the user for a permission; check: how a call would be decided, without running it; list: the mode, rules and grants; revoke: drop session grants"`
	Target      string            `json:"target" arg:"" optional:"" help:"the resource: a path, a domain (host, *.host, host:port) or a command (a trailing * covers any arguments); for check, what the applet would be called on"`
	TargetType  string            `json:"target_type" alias:"targetType,type" enum:"path,domain,command,agent," default:"" help:"what target is: path, domain, command, or agent (starting a subagent with task; target is its description) (guessed from target when left out)"`
	Level       string            `json:"level" enum:"read,write,execute,admin," default:"" help:"the access asked for: read, write, execute or admin (admin includes deletion); default read for paths, execute for commands"`
	Recursive   bool              `json:"recursive" help:"for a path: include everything below it (otherwise the path and its direct entries only)"`
	Description string            `json:"description" help:"what will be done, shown to the user (required for request)"`
	Reason      string            `json:"reason" help:"why it is needed, shown to the user"`
	Scope       string            `json:"scope" enum:"once,session," default:"" help:"when a person grants it at the shell: once (the next matching call) or session (default)"`
	Applet      string            `json:"applet" help:"for check: the applet that would run (read, write, edit, bash, fetch, ...); default from target_type and level"`
	IDs         []string          `json:"ids" alias:"id" help:"for revoke: the grant ids to drop (see list); all drops every grant"`
	Env         map[string]string `json:"env" type:"json" help:"for check of a command: the env the bash call would set (decided as bash decides it)"`
}

// PermitResult is the answer to a request (reference 000's response, plus details).
type PermitResult struct {
	Granted bool           `json:"granted"`
	Scope   string         `json:"scope,omitempty"` // once, session, or existing (already allowed)
	Message *string        `json:"message"`
	Target  string         `json:"target"`
	Level   string         `json:"level"`
	Grants  []policy.Grant `json:"grants,omitempty"`
	Rule    string         `json:"rule,omitempty"` // what allowed or refused it
}

// PermitCheck is the verdict on a would-be call.
type PermitCheck struct {
	Action string      `json:"action"` // allow, ask or deny, before ask is resolved
	Rule   string      `json:"rule"`   // the deciding rule with its origin, or the mode
	Scope  string      `json:"scope"`  // manifest, user, project, session, mode or watchdog
	Reason string      `json:"reason"`
	Parts  []PartCheck `json:"parts,omitempty"`
	// Watchdog is the shell watchdog's verdict on a command line it refused or
	// flagged: the same verdict the bash applet reports.
	Watchdog *shell.Verdict `json:"watchdog,omitempty"`
	// Resolved is what the call would get here: allow, deny, ask (a person would be
	// asked on the terminal) or needs_input (headless).
	Resolved string `json:"resolved"`
}

// PartCheck is the verdict on one part of a call (a command of a bash line, a path).
type PartCheck struct {
	Part   string `json:"part"`
	Action string `json:"action"`
	Rule   string `json:"rule"`
}

// PermitList shows the whole policy.
type PermitList struct {
	Mode   string         `json:"mode"`
	Rules  []PermitRule   `json:"rules"`
	Grants []policy.Grant `json:"grants"`
	// Warnings are the project-config settings agentbox ignored (a mode, trusted roots,
	// switched-off watchdog rules, an unreadable file).
	Warnings []string `json:"warnings,omitempty"`
}

// PermitRule is one rule as listed.
type PermitRule struct {
	Action     string `json:"action"`
	Permission string `json:"permission"`
	Pattern    string `json:"pattern,omitempty"`
	Scope      string `json:"scope"`
	Origin     string `json:"origin"`
	// TightenOnly marks rules of an untrusted project: they can only make a verdict stricter.
	TightenOnly bool `json:"tighten_only,omitempty"`
}

// PermitRevoke lists the grants dropped.
type PermitRevoke struct {
	Revoked []policy.Grant `json:"revoked"`
}

// Run implements core.Command.
func (p *Permit) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	pol, res, err := gate.PolicyFor(env)
	if err != nil {
		return nil, err
	}
	switch p.Action {
	case "list":
		return p.list(pol, res)
	case "revoke":
		ids := p.IDs
		if len(ids) == 0 && p.Target != "" {
			ids = strings.Split(p.Target, ",")
		}
		if len(ids) == 0 {
			return nil, core.Errorf(core.CodeInvalidParams, "revoke needs ids (from permit list), or all")
		}
		if len(ids) == 1 && ids[0] == "all" {
			ids = nil
		}
		gone, err := res.Grants.Revoke(ids...)
		if err != nil {
			return nil, core.Errorf(core.CodeIOError, "%v", err)
		}
		if len(gone) == 0 && ids != nil {
			return nil, core.Errorf(core.CodeNotFound, "no grant with id %s; run permit list to see the grants", strings.Join(ids, ", "))
		}
		if gone == nil {
			gone = []policy.Grant{} // all of none: nothing to revoke is no error
		}
		return &core.Result{Data: PermitRevoke{Revoked: gone}}, nil
	}
	if p.Target == "" {
		if spec := specOf(env, p.Applet); spec != nil && spec.Target == core.TargetNone {
			p.Target = "*" // an applet whose rules take no pattern (task): the applet itself
		} else {
			return nil, core.Errorf(core.CodeInvalidParams, "%s needs a target: a path, a domain or a command", p.Action)
		}
	}
	ttype := p.TargetType
	if ttype == "" {
		ttype = guessTargetType(p.Target, specOf(env, p.Applet))
	}
	level := p.Level
	if level == "" {
		level = map[string]string{"path": "read", "domain": "read", "command": "execute", "agent": "execute"}[ttype]
	}
	if p.Action == "check" {
		return p.check(env, pol, res, ttype, level)
	}
	return p.request(ctx, env, pol, res, ttype, level)
}

// specOf is the table's row of the applet named (nil: none, or not an applet).
func specOf(env *core.Env, name string) *core.Spec {
	if name == "" {
		return nil
	}
	for i := range env.Specs {
		if s := &env.Specs[i]; s.Name == name || slices.Contains(s.Aliases, name) {
			return s
		}
	}
	return nil
}

// sideEffect is the capability permit asks about for an applet: the last it declares.
func sideEffect(s *core.Spec) string {
	if s == nil || len(s.Capabilities) == 0 {
		return ""
	}
	return s.Capabilities[len(s.Capabilities)-1]
}

func guessTargetType(target string, applet *core.Spec) string {
	switch {
	case applet == nil:
	case applet.Target == core.TargetCommand:
		return "command"
	case applet.Target == core.TargetHost:
		return "domain"
	case sideEffect(applet) == core.CapAgentSpawn:
		return "agent"
	default:
		return "path"
	}
	switch {
	case strings.Contains(target, "://"):
		return "domain"
	case strings.HasPrefix(target, "/"), strings.HasPrefix(target, "./"), strings.HasPrefix(target, "~/"), strings.HasPrefix(target, "../"):
		return "path"
	case strings.ContainsAny(target, " |;&") || !strings.Contains(target, "."):
		return "command"
	}
	return "path"
}

// would builds the request a call of this kind makes.
func (p *Permit) would(env *core.Env, ttype, level string) (policy.Request, error) {
	specs := env.Specs
	if specs == nil {
		specs = All
	}
	if p.Applet != "" && !slices.ContainsFunc(specs, func(s core.Spec) bool { return s.Name == p.Applet }) {
		return policy.Request{}, core.Errorf(core.CodeInvalidParams, "there is no applet %q; name one of agentbox's applets (read, write, edit, bash, fetch, ...: agentbox --list), or leave applet out to take it from target_type and level", p.Applet)
	}
	if strings.ContainsRune(p.Target, 0) {
		// The call itself is refused (a NUL cannot be in a path or a command line); check
		// must not decide a target other than the one given.
		return policy.Request{}, core.Errorf(core.CodeInvalidParams, "target holds a NUL byte, which no path or command line can carry; remove it")
	}
	for k, v := range p.Env {
		if strings.ContainsRune(k, 0) || strings.ContainsRune(v, 0) {
			return policy.Request{}, core.Errorf(core.CodeInvalidParams, "env %q holds a NUL byte, which an environment variable cannot carry; remove it", strings.ReplaceAll(k, "\x00", `\0`))
		}
	}
	req := policy.Request{Applet: p.Applet, Target: p.Target, Cwd: env.Cwd}
	if ttype == "command" {
		// bash runs in the session's working directory (a cd persists), with its env.
		var saved bashCwd
		if env.Session != nil && env.Session.LoadJSON(bashCwdFile, &saved) == nil && saved.Dir != "" {
			req.Cwd = saved.Dir
		}
		for k := range p.Env {
			req.Env = append(req.Env, k)
		}
		req.EnvValues = p.Env
	}
	switch ttype {
	case "path":
		abs := p.Target
		if strings.HasPrefix(abs, "~/") && env.Getenv("HOME") != "" {
			abs = filepath.Join(env.Getenv("HOME"), abs[2:])
		}
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(env.Cwd, abs)
		}
		req.Target = filepath.Clean(abs)
		switch level {
		case "read":
			req.Capability = core.CapFSRead
			if req.Applet == "" {
				req.Applet = "read"
			}
		case "execute":
			req.Capability = core.CapShellRun
			if req.Applet == "" {
				req.Applet = "bash"
			}
		default:
			req.Capability = core.CapFSWrite
			if req.Applet == "" {
				req.Applet = "write"
			}
		}
	case "domain":
		req.Capability = core.CapNetFetch
		if req.Applet == "" {
			req.Applet = "fetch"
		}
	case "command":
		req.Capability = core.CapShellRun
		if p.Action != "check" {
			// A grant's " *" or ":*" covers any arguments; a check decides the line as
			// written (rm -rf * is a command, not a pattern).
			req.Target = strings.TrimSuffix(strings.TrimSuffix(p.Target, " *"), ":*")
		}
		if req.Applet == "" {
			req.Applet = "bash"
		}
	case "agent":
		req.Capability = core.CapAgentSpawn
		if req.Applet == "" {
			req.Applet = "task"
		}
	}
	if c := sideEffect(specOf(env, req.Applet)); c != "" && p.Applet != "" {
		req.Capability = c
	}
	return req, nil
}

func ruleOf(d policy.Decision) (rule, scope string) {
	cd := gate.CoreDecision(d)
	return cd.Rule, cd.Scope
}

func (p *Permit) check(env *core.Env, pol *policy.Policy, res policy.Resolver, ttype, level string) (*core.Result, error) {
	req, err := p.would(env, ttype, level)
	if err != nil {
		return nil, err
	}
	rules, err := res.Grants.Rules()
	if err != nil {
		return nil, core.Errorf(core.CodeIOError, "%v", err)
	}
	if why, ok := outsideWorkspace(env, req, ttype); ok {
		return &core.Result{Data: PermitCheck{Action: "deny", Reason: why, Resolved: "outside_workspace", Rule: "workspace", Scope: "workspace"}}, nil
	}
	d, parts := pol.WithGrants(rules).Explain(req)
	if why, ok := netguarded(env, req, d); ok {
		return &core.Result{Data: PermitCheck{Action: "deny", Resolved: "deny", Rule: "netguard", Scope: "netguard", Reason: why}}, nil
	}
	out := PermitCheck{Action: d.Action.String(), Reason: d.Reason, Resolved: d.Action.String(), Watchdog: d.Watchdog}
	out.Rule, out.Scope = ruleOf(d)
	if d.Action == policy.Ask {
		switch {
		case env.Interactive:
			out.Resolved = "allow"
		case res.NoOneToAsk():
			out.Resolved = "needs_input"
		}
	}
	if len(parts) > 1 || len(parts) == 1 && parts[0].Part != req.Target {
		for _, pd := range parts {
			r, _ := ruleOf(pd)
			out.Parts = append(out.Parts, PartCheck{Part: pd.Part, Action: pd.Action.String(), Rule: r})
		}
	}
	return &core.Result{Data: out}, nil
}

// outsideWorkspace: the applets refuse a path outside the workspace before the gate is
// asked, so check and request answer the same.
func outsideWorkspace(env *core.Env, req policy.Request, ttype string) (string, bool) {
	if ttype != "path" || req.Capability != core.CapFSRead && req.Capability != core.CapFSWrite {
		return "", false
	}
	if _, err := env.Resolve(req.Target); err != nil && core.AsError(err).Code == core.CodeOutsideWorkspace {
		return core.AsError(err).Message, true
	}
	return "", false
}

// netguarded: fetch refuses an internal address before dialling unless a rule names the
// host, so check and request answer the same.
func netguarded(env *core.Env, req policy.Request, d policy.Decision) (string, bool) {
	if req.Capability != core.CapNetFetch {
		return "", false
	}
	host, port := fetchHostPort(req.Target)
	if why := netguard.LiteralBlocked(host); why != "" && !privateAllowed(env, gate.CoreDecision(d), host, port) {
		return fmt.Sprintf("fetch refuses %s before dialling: a %s address; a rule or grant that names the host allows it", host, why), true
	}
	return "", false
}

// fetchHostPort is the host and port of a fetch target: a URL or host[:port].
func fetchHostPort(target string) (string, string) {
	if u, err := url.Parse(target); err == nil && u.Host != "" {
		port := u.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
		return u.Hostname(), port
	}
	if h, p, err := net.SplitHostPort(target); err == nil {
		return h, p
	}
	return strings.Trim(target, "[]"), ""
}

// grantsFor turns a permission request into grants.
func (p *Permit) grantsFor(req policy.Request, ttype, scope string) ([]policy.Grant, error) {
	g := policy.Grant{Scope: scope, Description: p.Description, Reason: p.Reason}
	var gs []policy.Grant
	switch ttype {
	case "path":
		g.Permission = req.Capability
		if req.Capability == core.CapShellRun {
			g.Pattern = shellWord(req.Target) + " *"
			gs = append(gs, g)
			break
		}
		g.Pattern = policy.EscapeGlob(req.Target)
		if p.Recursive {
			gs = append(gs, g)
			break
		}
		g.Shallow = true
		gs = append(gs, g)
		if scope == "session" {
			// The path's direct entries too (a directory's files), not what is deeper.
			kids := g
			kids.Pattern = strings.TrimSuffix(g.Pattern, "/") + "/*"
			gs = append(gs, kids)
		}
	case "domain":
		g.Permission = core.CapNetFetch
		host := p.Target
		if i := strings.Index(host, "://"); i >= 0 {
			host = host[i+3:]
		}
		if i := strings.IndexByte(host, '/'); i >= 0 {
			host = host[:i]
		}
		g.Pattern = strings.ToLower(host)
		gs = append(gs, g)
	case "command":
		g.Permission = core.CapShellRun
		g.Pattern = p.Target
		gs = append(gs, g)
	case "agent":
		g.Permission = core.CapAgentSpawn // any subagent: the capability takes no pattern
		gs = append(gs, g)
	}
	for _, g := range gs {
		if _, err := g.Rule(); err != nil {
			return nil, core.Errorf(core.CodeInvalidParams, "target %q cannot be granted as a %s: %v", p.Target, ttype, err)
		}
	}
	return gs, nil
}

func shellWord(s string) string {
	if strings.ContainsAny(s, " '\"\\*?") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}

func (p *Permit) request(ctx context.Context, env *core.Env, pol *policy.Policy, res policy.Resolver, ttype, level string) (*core.Result, error) {
	if strings.TrimSpace(p.Description) == "" && !env.Interactive {
		return nil, core.Errorf(core.CodeInvalidParams, "description is required: say in one line what will be done with %s, so the user can decide", p.Target)
	}
	req, err := p.would(env, ttype, level)
	if err != nil {
		return nil, err
	}
	if _, err := p.grantsFor(req, ttype, "session"); err != nil {
		return nil, err
	}
	req.Summary = p.Description
	if p.Reason != "" {
		req.Summary += " — " + p.Reason
	}
	out := PermitResult{Target: p.Target, Level: level}
	if why, ok := outsideWorkspace(env, req, ttype); ok {
		// No grant reaches outside the workspace: the call would be refused anyway.
		out.Rule, out.Message = "workspace", &why
		return &core.Result{Data: out}, nil
	}
	rules, err := res.Grants.Rules()
	if err != nil {
		return nil, core.Errorf(core.CodeIOError, "%v", err)
	}
	d := pol.WithGrants(rules).Evaluate(req)
	out.Rule, _ = ruleOf(d)
	if _, ok := netguarded(env, req, d); ok && d.Action == policy.Allow {
		// Allowed by a rule that does not name the host (a mode, a wildcard), fetch
		// would still refuse it: only a grant that names the host lets it through, so
		// the user is asked for one.
		d.Action = policy.Ask
	}
	switch d.Action {
	case policy.Allow:
		out.Granted, out.Scope = true, "existing"
		return &core.Result{Data: out}, nil
	case policy.Deny:
		msg := policy.DeniedText(req, d)
		out.Message = &msg
		return &core.Result{Data: out}, nil
	}
	scope := p.Scope
	switch {
	case env.Interactive:
		// A person at the shell is granting it themselves.
		if scope == "" {
			scope = "session"
		}
	case res.NoOneToAsk():
		return nil, core.Errorf(core.CodeNeedsInput, "needs input: permission for %s (%s %s) must be granted by a person and no one can be asked here (headless host: AGENTBOX_HEADLESS=1 or no terminal). Do not retry; continue without it, or ask the host to run `agentbox permit request %s --target-type %s --level %s` at a terminal or add an allow rule to the user config (%s).", p.Target, ttype, level, shellWord(p.Target), ttype, level, res.ConfigHint)
	default:
		ans, err := res.Asker.AskPermission(ctx, policy.Prompt{Request: req, Decision: d, Parts: []string{fmt.Sprintf("%s %s: %s", level, ttype, p.Target)}})
		if err != nil {
			return nil, core.Errorf(core.CodeNeedsInput, "could not ask the user for permission on %s: %v; continue without it", p.Target, err)
		}
		switch ans {
		case policy.AllowOnce:
			scope = "once"
		case policy.AllowSession:
			scope = "session"
		default:
			msg := "the user refused"
			out.Message = &msg
			return &core.Result{Data: out}, nil
		}
	}
	gs, err := p.grantsFor(req, ttype, scope)
	if err != nil {
		return nil, err
	}
	stored, err := res.Grants.Add(gs...)
	if err != nil {
		return nil, core.Errorf(core.CodeIOError, "the permission was granted but could not be stored: %v; retry", err)
	}
	out.Granted, out.Scope, out.Grants, out.Rule = true, scope, stored, ""
	return &core.Result{Data: out, Meta: map[string]any{"decision": core.Decision{Action: "allow", Rule: "grant " + stored[0].ID, Scope: "session", Reason: "granted by the user"}}}, nil
}

func (p *Permit) list(pol *policy.Policy, res policy.Resolver) (*core.Result, error) {
	gs, err := res.Grants.List()
	if err != nil {
		return nil, core.Errorf(core.CodeIOError, "%v", err)
	}
	out := PermitList{Mode: string(pol.Mode), Grants: gs, Rules: []PermitRule{}, Warnings: pol.Warnings}
	if out.Grants == nil {
		out.Grants = []policy.Grant{}
	}
	for _, r := range pol.Rules() {
		out.Rules = append(out.Rules, PermitRule{Action: r.Action.String(), Permission: r.Permission, Pattern: r.Pattern, Scope: string(r.Scope), Origin: r.Origin(), TightenOnly: pol.Untrusted(r)})
	}
	return &core.Result{Data: out}, nil
}

// RenderText implements core.TextRenderer.
func (r PermitResult) RenderText(p *core.Printer) {
	switch {
	case r.Granted && r.Scope == "existing":
		p.Printf("%s %s is already allowed (%s)\n", r.Level, r.Target, r.Rule)
	case r.Granted:
		p.Printf("%s %s %s for this %s\n", p.OK("granted"), r.Level, r.Target, map[string]string{"once": "call", "session": "session"}[r.Scope])
		for _, g := range r.Grants {
			p.Printf("  %s  %s %q\n", g.ID, g.Permission, g.Pattern)
		}
	default:
		msg := ""
		if r.Message != nil {
			msg = ": " + *r.Message
		}
		p.Printf("%s %s %s%s\n", p.Warn("not granted"), r.Level, r.Target, msg)
	}
}

// RenderText implements core.TextRenderer.
func (c PermitCheck) RenderText(p *core.Printer) {
	p.Printf("%s  (%s)\n  %s\n", c.Action, c.Rule, c.Reason)
	if c.Resolved != c.Action {
		p.Printf("  here: %s\n", c.Resolved)
	}
	for _, part := range c.Parts {
		p.Printf("  %-5s %s  (%s)\n", part.Action, part.Part, part.Rule)
	}
}

// RenderText implements core.TextRenderer.
func (l PermitList) RenderText(p *core.Printer) {
	p.Printf("mode: %s\n", l.Mode)
	for _, w := range l.Warnings {
		p.Printf("%s %s\n", p.Warn("warning:"), w)
	}
	if len(l.Rules) == 0 {
		p.Printf("rules: none\n")
	}
	for _, r := range l.Rules {
		extra := ""
		if r.TightenOnly {
			extra = " [untrusted project: tightens only]"
		}
		p.Printf("%-5s %-9s %-24q %s%s\n", r.Action, r.Permission, r.Pattern, p.Dim(r.Origin), extra)
	}
	if len(l.Grants) == 0 {
		p.Printf("grants: none\n")
	}
	for _, g := range l.Grants {
		p.Printf("%s  %-7s %-9s %q\n", g.ID, g.Scope, g.Permission, g.Pattern)
	}
}

// RenderText implements core.TextRenderer.
func (r PermitRevoke) RenderText(p *core.Printer) {
	for _, g := range r.Revoked {
		p.Printf("revoked %s  %s %q\n", g.ID, g.Permission, g.Pattern)
	}
}

// ActionFields implements core.ActionFields.
func (p *Permit) ActionFields() (string, map[string][]string) {
	return "permit", map[string][]string{
		"request": {"target", "target_type", "level", "recursive", "description", "reason", "scope", "applet"},
		"check":   {"target", "target_type", "level", "recursive", "applet", "env"},
		"list":    {},
		"revoke":  {"ids", "target"},
	}
}
