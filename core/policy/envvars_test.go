package policy

import (
	"strings"
	"testing"
)

// A rule that allows a command says nothing about the code an environment variable
// plants (issue 15: allow bash(git status) ran core.fsmonitor from GIT_CONFIG_*).
func TestCodeLoadingEnv(t *testing.T) {
	root := t.TempDir()
	req := func(env ...string) Request {
		return Request{Applet: "bash", Capability: CapShellRun, Target: "git status", Cwd: root, Env: env}
	}
	for _, mode := range []Mode{ModeDefault, ModeAcceptEdits, ModeBypass} {
		p := New(Env{Roots: []string{root}}, mode, mustRule(t, ScopeUser, "bash", "git status", Allow))
		if d := p.Evaluate(req()); d.Action != Allow {
			t.Fatalf("%s: git status alone: %v %s", mode, d.Action, d.Reason)
		}
		if d := p.Evaluate(req("CI", "NODE_ENV", "CGO_ENABLED")); d.Action != Allow {
			t.Errorf("%s: ordinary variables: %v %s", mode, d.Action, d.Reason)
		}
		for _, name := range []string{"GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_PARAMETERS", "GIT_SSH_COMMAND",
			"GIT_EXTERNAL_DIFF", "LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "PYTHONSTARTUP", "NODE_OPTIONS",
			"PERL5OPT", "RUBYOPT", "PROMPT_COMMAND", "BASH_ENV", "BASH_FUNC_ls%%", "npm_config_script_shell"} {
			d := p.Evaluate(req("CI", name))
			if d.Action != Deny || !strings.Contains(d.Reason, name) || !strings.Contains(d.Reason, `"shell.env"`) {
				t.Errorf("%s: env %s: %v %s", mode, name, d.Action, d.Reason)
			}
		}
	}
	// A shell.env rule that names the variables allows them; a broader allow does not.
	p := New(Env{Roots: []string{root}}, ModeDefault,
		mustRule(t, ScopeUser, "bash", "*", Allow),
		mustRule(t, ScopeUser, "*", "*", Allow),
		mustRule(t, ScopeUser, CapShellEnv, "GIT_CONFIG_*", Allow))
	if d := p.Evaluate(req("GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0")); d.Action != Allow {
		t.Errorf("shell.env(GIT_CONFIG_*) did not allow: %v %s", d.Action, d.Reason)
	}
	if d := p.Evaluate(req("GIT_SSH_COMMAND")); d.Action != Deny {
		t.Errorf("bash(*) and *(*) allowed GIT_SSH_COMMAND: %v", d.Action)
	}
	// A manifest deny holds over a user allow; an untrusted project can only tighten.
	p = New(Env{Roots: []string{root}}, ModeBypass,
		mustRule(t, ScopeUser, CapShellEnv, "*", Allow),
		mustRule(t, ScopeManifest, CapShellEnv, "LD_*", Deny))
	if d := p.Evaluate(req("LD_PRELOAD")); d.Action != Deny {
		t.Errorf("manifest deny of LD_*: %v", d.Action)
	}
	if d := p.Evaluate(req("NODE_OPTIONS")); d.Action != Allow {
		t.Errorf("shell.env(*): %v %s", d.Action, d.Reason)
	}
	p.tighten = append(p.tighten, mustRule(t, ScopeProject, CapShellEnv, "NODE_OPTIONS", Deny))
	if d := p.Evaluate(req("NODE_OPTIONS")); d.Action != Deny {
		t.Errorf("untrusted project deny: %v", d.Action)
	}
	// Configured names join the list.
	p = New(Env{Roots: []string{root}}, ModeBypass)
	p.CodeEnv = []string{"MY_HOOK_*"}
	if d := p.Evaluate(req("MY_HOOK_CMD")); d.Action != Deny {
		t.Errorf("configured code_env: %v", d.Action)
	}
}
