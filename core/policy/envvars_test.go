package policy

import (
	"strings"
	"testing"
)

// A rule that allows a command says nothing about the code an environment variable
// plants (issue 15: allow bash(git status) ran core.fsmonitor from GIT_CONFIG_*): a
// person must approve it. Where every command is allowed (bypass, bash(*)) it gives
// nothing more and is allowed; agentbox's own settings are refused in every mode.
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
			"PERL5OPT", "RUBYOPT", "PROMPT_COMMAND", "BASH_ENV", "BASH_FUNC_ls%%", "npm_config_script_shell",
			"CC", "RUSTFLAGS", "PIP_INDEX_URL", "GOPROXY", "CMAKE_C_COMPILER_LAUNCHER"} {
			d := p.Evaluate(req("CI", name))
			switch {
			case mode == ModeBypass && d.Action != Allow:
				t.Errorf("%s: env %s: %v %s, want allow (every command is)", mode, name, d.Action, d.Reason)
			case mode != ModeBypass && (d.Action != Ask || !strings.Contains(d.Reason, name) || !strings.Contains(d.Reason, `"shell.env"`)):
				t.Errorf("%s: env %s: %v %s, want ask naming the shell.env rule", mode, name, d.Action, d.Reason)
			}
		}
		if d := p.Evaluate(req("AGENTBOX_MODE")); d.Action != Deny || !strings.Contains(d.Reason, "AGENTBOX_MODE") {
			t.Errorf("%s: env AGENTBOX_MODE: %v %s, want deny", mode, d.Action, d.Reason)
		}
	}
	// A shell.env rule that names the variables allows them.
	p := New(Env{Roots: []string{root}}, ModeDefault,
		mustRule(t, ScopeUser, "bash", "git *", Allow),
		mustRule(t, ScopeUser, CapShellEnv, "GIT_CONFIG_*", Allow))
	if d := p.Evaluate(req("GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0")); d.Action != Allow {
		t.Errorf("shell.env(GIT_CONFIG_*) did not allow: %v %s", d.Action, d.Reason)
	}
	if d := p.Evaluate(req("GIT_SSH_COMMAND")); d.Action != Ask {
		t.Errorf("bash(git *) and shell.env(GIT_CONFIG_*) decided GIT_SSH_COMMAND: %v", d.Action)
	}
	// Where every command is allowed, a variable gives nothing more; a deny rule beside
	// the allow-all narrows it, and a person decides again.
	p = New(Env{Roots: []string{root}}, ModeDefault, mustRule(t, ScopeUser, "bash", "*", Allow))
	if d := p.Evaluate(req("GIT_SSH_COMMAND")); d.Action != Allow {
		t.Errorf("bash(*): GIT_SSH_COMMAND %v %s", d.Action, d.Reason)
	}
	if d := p.Evaluate(req("AGENTBOX_CONFIG")); d.Action != Deny {
		t.Errorf("bash(*): AGENTBOX_CONFIG %v", d.Action)
	}
	p = New(Env{Roots: []string{root}}, ModeDefault, mustRule(t, ScopeUser, "bash", "*", Allow), mustRule(t, ScopeUser, "bash", "git push *", Deny))
	if d := p.Evaluate(req("GIT_SSH_COMMAND")); d.Action != Ask {
		t.Errorf("bash(*) beside deny bash(git push *): GIT_SSH_COMMAND %v %s", d.Action, d.Reason)
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
	p = New(Env{Roots: []string{root}}, ModeDefault, mustRule(t, ScopeUser, "bash", "git status", Allow))
	p.CodeEnv = []string{"MY_HOOK_*"}
	if d := p.Evaluate(req("MY_HOOK_CMD")); d.Action != Ask {
		t.Errorf("configured code_env: %v", d.Action)
	}
}
