// Package gate wires the permission policy (core/policy) and the shell watchdog
// (core/shell) into core's Gate interface. core holds only the contract (Request,
// Decision, Gate), so the packages that describe applets (prompt, man, completions)
// link no shell parser. A real process uses PolicyGate; DefaultGate is the watchdog
// and the read-only mode alone, for tests and in-process calls without a policy.
package gate

import (
	"context"
	"errors"
	"sync"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/policy"
	"github.com/agentbox/agentbox/core/shell"
	"github.com/agentbox/agentbox/core/tty"
)

// PolicyGate is the gate of a real process: the permission rules of the manifest,
// user and project configs and the session's grants (package core/policy), with ask
// resolved for a person at a terminal (allow), on /dev/tty (core/tty) or, headless,
// as a needs_input refusal. The configs are read on the first call only.
type PolicyGate struct {
	once sync.Once
	pol  *policy.Policy
	err  error
	// Asker asks a person; nil means /dev/tty.
	Asker policy.Asker
}

// Policy loads (once) and returns the policy for env.
func (g *PolicyGate) Policy(env *core.Env) (*policy.Policy, error) {
	g.once.Do(func() {
		if env.Specs != nil {
			UseApplets(env.Specs)
		}
		getenv := env.Getenv
		src := policy.Sources{
			Manifest: getenv("AGENTBOX_MANIFEST"),
			Mode:     getenv("AGENTBOX_MODE"),
			Ceiling:  getenv("AGENTBOX_MODE_CEILING"),
			Getenv:   getenv,
		}
		penv := policy.Env{Home: getenv("HOME")}
		if env.WS != nil {
			src.Projects = env.WS.Roots
			penv.Roots = append([]string(nil), env.WS.Roots...)
		}
		if env.Session != nil {
			penv.ReadRoots = env.Session.ReadableDirs()
		}
		g.pol, g.err = policy.Load(src, penv)
	})
	return g.pol, g.err
}

// Warnings are the ignored project-config settings of the policy, once it is loaded (a
// call that never reached the gate has read no config to warn about).
func (g *PolicyGate) Warnings() []string {
	if g == nil || g.pol == nil {
		return nil
	}
	return g.pol.Warnings
}

// ReadFilter is the policy's per-path read check for walks (see policy.ReadFilter);
// nil when nothing could be refused.
func (g *PolicyGate) ReadFilter(env *core.Env) func(abs string, isDir bool) bool {
	pol, err := g.Policy(env)
	if err != nil {
		return nil
	}
	return pol.ReadFilter(env.Applet)
}

// GrantStore returns the session's grant store (grants.json in the session directory).
func GrantStore(env *core.Env) (*policy.Store, error) {
	dir, err := env.Session.Dir()
	if err != nil {
		return nil, err
	}
	return policy.OpenStore(dir), nil
}

// Resolver is how ask is resolved for env: allow for a person who typed the call,
// needs_input for a headless host, else a question on /dev/tty.
func (g *PolicyGate) Resolver(env *core.Env) (policy.Resolver, error) {
	store, err := GrantStore(env)
	if err != nil {
		return policy.Resolver{}, err
	}
	asker := g.Asker
	if asker == nil {
		asker = tty.Asker{}
	}
	return policy.Resolver{
		Person:       env.Interactive,
		HeadlessFunc: func() bool { return g.Asker == nil && policy.IsHeadless(env.Getenv) },
		Asker:        asker,
		Grants:       store,
		ConfigHint:   policy.UserConfigPath(env.Getenv),
	}, nil
}

// Authorize implements Gate.
func (g *PolicyGate) Authorize(ctx context.Context, env *core.Env, req core.Request) (core.Decision, error) {
	pol, err := g.Policy(env)
	if err != nil {
		return core.Decision{Action: "deny", Reason: err.Error()}, core.Errorf(core.CodeInvalidParams, "%v", err)
	}
	res, err := g.Resolver(env)
	if err != nil {
		return core.Decision{Action: "deny", Reason: err.Error()}, err
	}
	cwd := req.Dir
	if cwd == "" {
		cwd = env.Cwd
	}
	d, err := pol.Authorize(ctx, policy.Request{
		Applet: req.Applet, Capability: req.Capability, Target: req.Target, Targets: req.Targets, Summary: req.Summary, Cwd: cwd, Env: req.Env, Own: req.Own, EnvValues: req.EnvValues,
	}, res)
	cd := CoreDecision(d)
	if err != nil {
		var rf *policy.Refusal
		if errors.As(err, &rf) {
			e := core.Errorf(core.ErrorCode(rf.Code), "%s", rf.Text)
			if d.Watchdog != nil {
				e = e.WithDetails(map[string]any{"watchdog": verdict(d.Watchdog)})
			}
			return cd, e
		}
		return cd, err
	}
	return cd, nil
}

// CoreDecision converts a policy decision for the envelope's metadata.
func CoreDecision(d policy.Decision) core.Decision {
	cd := core.Decision{Action: d.Action.String(), Reason: d.Reason, Watchdog: verdict(d.Watchdog)}
	switch {
	case d.Rule != nil:
		cd.Rule = d.Rule.String()
		cd.Scope = string(d.Rule.Scope)
		if !d.Rule.Prompted {
			cd.Pattern = d.Rule.Pattern // a prompt's grant names no host (Rule.Prompted)
		}
	case d.Guard != "":
		cd.Rule = "protected: " + d.Guard
		cd.Scope = "protected"
	case d.Variable != "":
		cd.Rule = "code-loading variable " + d.Variable
		cd.Scope = "env"
	case d.Mode != "":
		cd.Rule = "mode " + string(d.Mode)
		cd.Scope = "mode"
	case d.Watchdog != nil:
		cd.Rule = "watchdog"
		cd.Scope = "watchdog"
	default:
		// No rule decided: the decision failed (a damaged grant store) and refuses.
		cd.Rule = "none: the decision failed"
		cd.Scope = "error"
	}
	return cd
}

// PolicyFor returns the policy and the ask resolver that env's gate uses, for the
// applets that inspect or extend them (permit). An Env without a PolicyGate (tests)
// gets one built from its variables.
func PolicyFor(env *core.Env) (*policy.Policy, policy.Resolver, error) {
	g, ok := env.Gate.(*PolicyGate)
	if !ok {
		g = &PolicyGate{}
	}
	pol, err := g.Policy(env)
	if err != nil {
		return nil, policy.Resolver{}, core.Errorf(core.CodeInvalidParams, "%v", err)
	}
	res, err := g.Resolver(env)
	if err != nil {
		return nil, policy.Resolver{}, err
	}
	return pol, res, nil
}

// verdict is the watchdog's verdict as core reports it.
func verdict(v *shell.Verdict) *core.WatchdogVerdict {
	if v == nil {
		return nil
	}
	return &core.WatchdogVerdict{Action: string(v.Action), Reason: v.Reason, Rule: v.Rule}
}

// UseApplets tells the permission policy which applets exist and what their rules
// match, from the table: the policy has no list of its own.
func UseApplets(specs []core.Spec) {
	targets := make(map[string]string, len(specs))
	for _, s := range specs {
		targets[s.Name] = s.Target
	}
	policy.UseApplets(targets)
}

// DefaultGate enforces only the watchdog and the permission mode given by
// AGENTBOX_MODE (read-only refuses every side effect), without rules or asking: the
// gate of tests and in-process calls. The watchdog holds whatever the gate.
type DefaultGate struct{}

// Authorize implements core.Gate.
func (DefaultGate) Authorize(_ context.Context, env *core.Env, req core.Request) (core.Decision, error) {
	var flagged *shell.Verdict
	if req.Capability == core.CapShellRun && !req.Own {
		pol, err := (&PolicyGate{}).Policy(env)
		if err != nil {
			return core.Decision{Action: "deny", Reason: err.Error()}, core.Errorf(core.CodeInvalidParams, "%v", err)
		}
		cwd := req.Dir
		if cwd == "" {
			cwd = env.Cwd
		}
		flagged = pol.WatchdogVerdict(policy.Request{Applet: req.Applet, Capability: req.Capability, Target: req.Target, Cwd: cwd, EnvValues: req.EnvValues})
		if flagged != nil && flagged.Action == shell.Deny {
			pd := policy.Decision{Action: policy.Deny, Reason: "the watchdog refuses it: " + flagged.Reason, Watchdog: flagged}
			text := policy.DeniedText(policy.Request{Capability: req.Capability, Target: req.Target}, pd)
			return CoreDecision(pd), core.Errorf(core.CodePermissionDenied, "%s", text).WithDetails(map[string]any{"watchdog": verdict(flagged)})
		}
	}
	if env.Getenv != nil && env.Getenv("AGENTBOX_MODE") == "read-only" && req.Capability != core.CapFSRead {
		d := core.Decision{Action: "deny", Rule: "mode read-only", Reason: "the permission mode is read-only"}
		return d, core.Errorf(core.CodePermissionDenied, "%s is refused: agentbox runs in read-only mode (AGENTBOX_MODE=read-only); ask the user to change the mode", req.Summary)
	}
	return core.Decision{Action: "allow", Rule: "mode", Watchdog: verdict(flagged)}, nil
}
