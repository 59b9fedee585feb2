package policy

import (
	"path/filepath"
	"testing"
)

// The agent cannot change what governs it (issue 15): no mode allows a write to the
// configs, .git/config, .git/hooks or shell start-up files; an explicit user or manifest
// rule naming the path does, a catch-all does not.
func TestProtectedWrites(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	userCfg := filepath.Join(home, ".config", "agentbox", "config.json")
	protected := []string{
		filepath.Join(root, ".agentbox", "config.json"),
		filepath.Join(root, ".agentbox", "skills", "x", "SKILL.md"),
		filepath.Join(root, ".git", "config"),
		filepath.Join(root, ".git", "hooks", "pre-commit"),
		filepath.Join(root, "sub", ".git", "hooks", "post-checkout"),
		filepath.Join(root, ".git", "modules", "lib", "config"),
		filepath.Join(home, ".bashrc"), filepath.Join(home, ".profile"), filepath.Join(home, ".zshrc"),
		filepath.Join(home, ".ssh", "authorized_keys"), filepath.Join(home, ".gitconfig"),
		userCfg,
	}
	ordinary := []string{
		filepath.Join(root, "main.go"), filepath.Join(root, ".agentbox", "plans", "plan-001.md"),
		filepath.Join(root, ".gitignore"), filepath.Join(root, "git", "config"),
	}
	env := Env{Roots: []string{root}, Home: home}
	catchAll := []*Rule{
		mustRule(t, ScopeUser, "*", "*", Allow), mustRule(t, ScopeUser, "write", "**", Allow),
		mustRule(t, ScopeManifest, "fs.write", "", Allow),
	}
	for _, mode := range []Mode{ModeDefault, ModeAcceptEdits, ModeBypass} {
		p := New(env, mode, catchAll...)
		p.ConfigFiles = []string{userCfg}
		for _, path := range protected {
			d := p.Evaluate(Request{Applet: "write", Capability: CapFSWrite, Target: path})
			if d.Action != Ask || d.Guard == "" {
				t.Errorf("%s: write %s: %v (%s), want ask by a protection", mode, path, d.Action, d.Reason)
			}
		}
		for _, path := range ordinary {
			if mode == ModeDefault {
				continue
			}
			if d := p.Evaluate(Request{Applet: "write", Capability: CapFSWrite, Target: path}); d.Action != Allow {
				t.Errorf("%s: write %s: %v (%s), want allow", mode, path, d.Action, d.Reason)
			}
		}
		// Reads stay allowed.
		if d := p.Evaluate(Request{Applet: "read", Capability: CapFSRead, Target: filepath.Join(root, ".git", "config")}); d.Action != Allow {
			t.Errorf("%s: read .git/config: %v", mode, d.Action)
		}
	}
	// A user or manifest rule naming the path lets it through; a project's does not.
	p := New(env, ModeDefault,
		mustRule(t, ScopeUser, "write", ".git/hooks/**", Allow),
		mustRule(t, ScopeManifest, "fs.write", "~/.bashrc", Allow),
		mustRule(t, ScopeProject, "write", ".agentbox/**", Allow))
	for path, want := range map[string]Action{
		filepath.Join(root, ".git", "hooks", "pre-commit"): Allow,
		filepath.Join(home, ".bashrc"):                     Allow,
		filepath.Join(root, ".agentbox", "config.json"):    Ask,
	} {
		if d := p.Evaluate(Request{Applet: "write", Capability: CapFSWrite, Target: path}); d.Action != want {
			t.Errorf("explicit rules: write %s: %v (%s), want %v", path, d.Action, d.Reason, want)
		}
	}
	// A bash redirection into a hook is held too, even in bypass mode.
	p = New(env, ModeBypass)
	if d := p.Evaluate(Request{Applet: "bash", Capability: CapShellRun, Target: "echo evil > .git/hooks/pre-commit", Cwd: root}); d.Action != Ask {
		t.Errorf("redirect into a hook in bypass: %v (%s)", d.Action, d.Reason)
	}
}
