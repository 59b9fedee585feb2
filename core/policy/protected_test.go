package policy

import (
	"os"
	"path/filepath"
	"strings"
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

// The fourteenth red team's file-applet findings: protected files reached where no
// path segment names them, or named as another file system would read the name.
func TestProtectedWritesFourteenthRedTeam(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	realHome := filepath.Join(base, "realhome")
	home := filepath.Join(base, "homelink") // $HOME is a link
	xdgCfg, xdgData := filepath.Join(base, "cfg"), filepath.Join(base, "data")
	other := filepath.Join(base, "elsewhere-gitdir")
	for _, d := range []string{root, realHome, filepath.Join(root, "gitstore", "hooks"), filepath.Join(root, "dotfiles"),
		filepath.Join(root, "sub", "inner-git", "hooks"), filepath.Join(other, "hooks"), filepath.Join(root, "linked")} {
		mustMkdir(t, d)
	}
	must(t, os.Symlink(realHome, home))
	// The workspace's .git is a "gitdir:" file; a sub-repository's .git is a link.
	mustWrite(t, filepath.Join(root, ".git"), "gitdir: gitstore\n")
	must(t, os.Symlink(filepath.Join(root, "sub", "inner-git"), filepath.Join(root, "sub", ".git")))
	// A second root whose .git leads out of every root.
	mustWrite(t, filepath.Join(root, "linked", ".git"), "gitdir: "+other+"\n")
	// Dotfiles kept in the workspace, linked from home; one link leads nowhere yet.
	must(t, os.Symlink(filepath.Join(root, "dotfiles", "bashrc"), filepath.Join(realHome, ".bashrc")))
	mustWrite(t, filepath.Join(root, "dotfiles", "bashrc"), "# rc\n")
	must(t, os.Symlink(filepath.Join(root, "dotfiles", "profile"), filepath.Join(realHome, ".profile")))
	must(t, os.Symlink(filepath.Join(root, "dotfiles", "ssh"), filepath.Join(realHome, ".ssh")))

	protected := []string{
		filepath.Join(root, "gitstore", "hooks", "pre-commit"),
		filepath.Join(root, "gitstore", "config"),
		filepath.Join(root, "sub", "inner-git", "hooks", "post-checkout"),
		filepath.Join(other, "hooks", "pre-push"),
		filepath.Join(realHome, ".bashrc"),
		filepath.Join(realHome, ".gitconfig"),
		filepath.Join(realHome, ".ssh", "authorized_keys"),
		filepath.Join(root, "dotfiles", "bashrc"),
		filepath.Join(root, "dotfiles", "profile"),
		filepath.Join(root, "dotfiles", "ssh", "authorized_keys"),
		filepath.Join(xdgCfg, "git", "config"),
		filepath.Join(xdgCfg, "fish", "config.fish"),
		filepath.Join(xdgCfg, "systemd", "user", "x.service"),
		filepath.Join(xdgData, "applications", "x.desktop"),
		filepath.Join(root, ".AGENTBOX", "config.json"),
		filepath.Join(root, "sub", ".agentbox", "config.json"),
		filepath.Join(root, "sub", ".agentbox", "skills", "x", "SKILL.md"),
		filepath.Join(realHome, ".BASHRC"),
		filepath.Join(realHome, ".SSH", "authorized_keys"),
		filepath.Join(root, ".git.", "config"),
		filepath.Join(root, ".git ", "hooks", "x"),
		filepath.Join(root, "GIT~1", "config"),
		filepath.Join(root, ".g\u200cit", "hooks", "pre-commit"),
		filepath.Join(realHome, ".local", "lib", "python3.12", "site-packages", "x.pth"),
		filepath.Join(realHome, ".config", "gh", "hosts.yml"),
		filepath.Join(realHome, ".cargo", "credentials.toml"),
		filepath.Join(realHome, ".zshrc.d", "x.zsh"),
		filepath.Join(realHome, ".psqlrc"),
	}
	ordinary := []string{
		filepath.Join(root, "main.go"),
		filepath.Join(root, "gitstore.txt"),
		filepath.Join(root, "sub", ".agentbox", "plans", "plan-001.md"),
		filepath.Join(realHome, "notes.txt"),
		filepath.Join(xdgCfg, "myapp", "settings.json"),
		filepath.Join(root, "dotfiles", "README"),
	}
	env := Env{Roots: []string{root, filepath.Join(root, "linked")}, Home: home}
	getenv := func(k string) string {
		return map[string]string{"XDG_CONFIG_HOME": xdgCfg, "XDG_DATA_HOME": xdgData, "HOME": home}[k]
	}
	p := New(env, ModeBypass)
	p.Getenv = getenv
	for _, path := range protected {
		if d := p.Evaluate(Request{Applet: "write", Capability: CapFSWrite, Target: path}); d.Action != Ask || d.Guard == "" {
			t.Errorf("write %s: %v (%s), want ask by a protection", path, d.Action, d.Reason)
		}
	}
	for _, path := range ordinary {
		if d := p.Evaluate(Request{Applet: "write", Capability: CapFSWrite, Target: path}); d.Action != Allow {
			t.Errorf("write %s: %v (%s), want allow", path, d.Action, d.Reason)
		}
	}
}

func TestSameName(t *testing.T) {
	for _, c := range []struct {
		seg, name string
		want      bool
	}{
		{".git", ".git", true}, {".GIT", ".git", true}, {".git.", ".git", true}, {".git . .", ".git", true},
		{"git~1", ".git", true}, {"GIT~2", ".git", true}, {".g\u200cit", ".git", true}, {"\ufeff.git", ".git", true},
		{"AGENTB~1", ".agentbox", true}, {".gitx", ".git", false}, {"git", ".git", false}, {"git~10", ".git", false},
		{".", ".git", false}, {"..", ".git", false}, {"gi~1", ".git", false},
	} {
		if got := sameName(c.seg, c.name); got != c.want {
			t.Errorf("sameName(%q, %q) = %v, want %v", c.seg, c.name, got, c.want)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mustMkdir(t *testing.T, dir string) { t.Helper(); must(t, os.MkdirAll(dir, 0o755)) }

func mustWrite(t *testing.T, path, text string) {
	t.Helper()
	must(t, os.WriteFile(path, []byte(text), 0o644))
}

// The thirteenth red team's bash lines that wrote a protected file in bypass mode
// through git's environment and options: each must ask (or be refused).
func TestProtectedWritesThroughGit(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	mustMkdir(t, filepath.Join(root, ".git", "hooks"))
	p := New(Env{Roots: []string{root}, Home: home}, ModeBypass)
	for _, line := range []string{
		"GIT_TEMPLATE_DIR=evil git init",
		"git --work-tree=.git/hooks checkout HEAD -- pre-commit", "git --work-tree=.git checkout HEAD -- config",
		"GIT_WORK_TREE=.git/hooks git checkout HEAD -- pre-commit", "git --work-tree=.git/hooks reset --hard",
		"git --work-tree=$HOME/.ssh checkout HEAD -- authorized_keys", "GIT_WORK_TREE=$HOME/.ssh git checkout HEAD -- authorized_keys",
		"GIT_OBJECT_DIRECTORY=$HOME/.ssh git add .", "GIT_DIR=$HOME/.ssh git init", "git --git-dir=$HOME/.ssh init",
		"GIT_DIR=.git/hooks git init", "GIT_INDEX_FILE=.git/hooks/pre-commit git add .",
	} {
		d := p.Evaluate(Request{Applet: "bash", Capability: CapShellRun, Target: line, Cwd: root})
		if d.Action == Allow {
			t.Errorf("%q: allowed (%s), want ask or deny", line, d.Reason)
		}
	}
	for _, line := range []string{"git checkout main", "git init", "GIT_TRACE=1 git status", "git --work-tree=. checkout x"} {
		if d := p.Evaluate(Request{Applet: "bash", Capability: CapShellRun, Target: line, Cwd: root}); d.Action != Allow {
			t.Errorf("%q: %v (%s), want allow", line, d.Action, d.Reason)
		}
	}
}

// The fourteenth red team's second round: .git files read as git reads them, git
// directories that no .git names, links inside protected home folders, a HOME with ".."
// after a link, a relative XDG_STATE_HOME, and names that fold to a protected one.
func TestProtectedWritesFourteenthRedTeamRoundTwo(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	gitDir := func(d string) {
		mustMkdir(t, filepath.Join(d, "objects"))
		mustMkdir(t, filepath.Join(d, "refs"))
		mustMkdir(t, filepath.Join(d, "hooks"))
		mustWrite(t, filepath.Join(d, "HEAD"), "ref: refs/heads/main\n")
	}
	for _, d := range []string{"  store", "store\t", "deep/real", "substore", "vendor.git", "bare.git"} {
		gitDir(filepath.Join(root, d))
	}
	mustMkdir(t, filepath.Join(root, "a", "b"))
	must(t, os.Symlink(filepath.Join(root, "deep", "x"), filepath.Join(root, "a", "lnk")))
	mustMkdir(t, filepath.Join(root, "deep", "x"))
	mustMkdir(t, filepath.Join(root, "one"))
	mustMkdir(t, filepath.Join(root, "two"))
	mustMkdir(t, filepath.Join(root, "three"))
	mustMkdir(t, filepath.Join(root, "sub"))
	mustWrite(t, filepath.Join(root, "one", ".git"), "gitdir:   store\n") // blanks are the path's: "  store" from one/
	must(t, os.Rename(filepath.Join(root, "  store"), filepath.Join(root, "one", "  store")))
	mustWrite(t, filepath.Join(root, "two", ".git"), "gitdir: ../store\t\r\n")
	mustWrite(t, filepath.Join(root, "three", ".git"), "gitdir: ../a/lnk/../real\n") // lnk/.. is deep/, as the kernel goes
	mustWrite(t, filepath.Join(root, "sub", ".git"), "gitdir: ../substore\n")
	// Padded past any size a reader might stop at: git still reads the path.
	mustMkdir(t, filepath.Join(root, "paddedstore", "hooks"))
	mustWrite(t, filepath.Join(root, ".git"), "gitdir: paddedstore"+strings.Repeat("\n", 100<<10))
	// A worktree's folder in a bare repository: HEAD and commondir.
	mustMkdir(t, filepath.Join(root, "bare.git", "worktrees", "wt"))
	mustWrite(t, filepath.Join(root, "bare.git", "worktrees", "wt", "HEAD"), "ref: refs/heads/wt\n")
	mustWrite(t, filepath.Join(root, "bare.git", "worktrees", "wt", "commondir"), "../..\n")

	realHome := filepath.Join(base, "deep2", "a", "h3")
	mustMkdir(t, filepath.Join(base, "deep2", "a", "b"))
	mustMkdir(t, filepath.Join(realHome, ".ssh"))
	mustMkdir(t, filepath.Join(realHome, ".config", "fish"))
	must(t, os.Symlink(filepath.Join(base, "deep2", "a", "b"), filepath.Join(base, "hl2")))
	home := filepath.Join(base, "hl2") + "/../h3" // the kernel takes it to deep2/a/h3
	mustMkdir(t, filepath.Join(root, "dotfiles", "fishconf"))
	must(t, os.Symlink(filepath.Join(root, "dotfiles", "ak"), filepath.Join(realHome, ".ssh", "authorized_keys")))
	must(t, os.Symlink(filepath.Join(root, "dotfiles", "fishconf"), filepath.Join(realHome, ".config", "fish", "conf.d")))

	protected := []string{
		filepath.Join(root, "one", "  store", "hooks", "pre-commit"),
		filepath.Join(root, "store\t", "config"),
		filepath.Join(root, "deep", "real", "hooks", "post-checkout"),
		filepath.Join(root, "substore", "config"),
		filepath.Join(root, "paddedstore", "hooks", "pre-commit"),
		filepath.Join(root, "vendor.git", "hooks", "pre-push"),
		filepath.Join(root, "bare.git", "worktrees", "wt", "config.worktree"),
		filepath.Join(root, "bare.git", "config"),
		filepath.Join(root, "dotfiles", "ak"),
		filepath.Join(root, "dotfiles", "fishconf", "x.fish"),
		filepath.Join(realHome, ".bashrc"),
		filepath.Join(realHome, ".ssh", "config"),
		filepath.Join(realHome, ".baſhrc"),
		filepath.Join(base, "gitdir-env", "hooks", "x"),
	}
	ordinary := []string{filepath.Join(root, "main.go"), filepath.Join(root, "dotfiles", "README"), filepath.Join(root, "deep", "x", "f")}
	p := New(Env{Roots: []string{root}, Home: home}, ModeBypass)
	p.Getenv = func(k string) string {
		return map[string]string{"GIT_DIR": filepath.Join(base, "gitdir-env"), "XDG_STATE_HOME": "state"}[k]
	}
	for _, path := range protected {
		if d := p.Evaluate(Request{Applet: "write", Capability: CapFSWrite, Target: path}); d.Action != Ask || d.Guard == "" {
			t.Errorf("write %q: %v (%s), want ask by a protection", path, d.Action, d.Reason)
		}
	}
	for _, path := range ordinary {
		if d := p.Evaluate(Request{Applet: "write", Capability: CapFSWrite, Target: path}); d.Action != Allow {
			t.Errorf("write %q: %v (%s), want allow", path, d.Action, d.Reason)
		}
	}
	// A relative XDG_STATE_HOME is ignored, as the XDG specification says: the state
	// (the grants) stays below the home folder, where it is protected.
	getenv := func(k string) string { return map[string]string{"XDG_STATE_HOME": "state", "HOME": "/h"}[k] }
	if got := StateDir(getenv); got != "/h/.local/state/agentbox" {
		t.Errorf("StateDir with a relative XDG_STATE_HOME = %q", got)
	}
}
