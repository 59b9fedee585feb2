package policy

import (
	"fmt"
	"path/filepath"
	"strings"
)

// The files that govern agentbox or run code later for a person are protected: no mode
// lets an applet write them (accept-edits and bypass included), so an agent can neither
// raise its own permissions (a project .agentbox/config.json, the user config, the
// manifest) nor plant code a person runs later (.git/config's core.fsmonitor and
// aliases, .git/hooks, shell start-up files). Only an explicit allow rule of the user
// config or the manifest whose pattern names the path, or a person's answer (a grant),
// lets such a write through; otherwise it asks, and headless that is needs_input.

// homeProtected are the start-up and credential files under $HOME that run code or
// grant access the next time a person opens a shell, logs in or runs git.
var homeProtected = []string{
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv",
	".zprofile", ".zlogin", ".zlogout", ".kshrc", ".cshrc", ".tcshrc", ".inputrc", ".xprofile",
	".xinitrc", ".config/fish", ".config/environment.d", ".config/autostart",
	".config/systemd", ".config/git", ".gitconfig", ".ssh", ".pam_environment",
	// Tools' config that names commands they run (a red-team helper's list): npm's and
	// cargo's scripts and wrappers, pip's index, editors' and tmux's start-up files,
	// docker's credential helpers, kubectl's exec plugins, direnv, and programs put
	// first on a person's PATH; and agentbox's own user folder (skills steer the agent).
	".npmrc", ".yarnrc", ".yarnrc.yml", ".cargo/config", ".cargo/config.toml", ".config/pip", ".pip",
	".pypirc", ".hgrc", ".vimrc", ".vim", ".config/nvim", ".emacs", ".emacs.d", ".tmux.conf",
	".config/tmux", ".docker/config.json", ".kube/config", ".config/direnv", ".local/bin", "bin",
	".config/agentbox", ".claude", ".codex", ".gemini", ".local/share/agentbox",
	// A second red team's list: more files sourced at login or by a shell, credentials,
	// and tools' start-up and config files that name commands.
	".bash_aliases", ".bashrc.d", ".config/zsh", ".oh-my-zsh", ".login", ".logout", ".xsessionrc",
	".xsession", ".netrc", ".git-credentials", ".ipython", ".gradle/init.gradle", ".gradle/init.d",
	".gradle/gradle.properties", ".mcp.json", ".curlrc", ".wgetrc", ".gnupg", ".m2/settings.xml",
	".bundle/config", ".condarc", ".config/containers", ".config/Code/User", ".gdbinit", ".lldbinit",
	".Rprofile", ".irbrc", ".envrc", ".aws/config", ".aws/credentials", ".config/powershell",
	".config/nushell", ".local/share/systemd", ".config/autostart-scripts", ".config/plasma-workspace",
	".cargo/bin", "go/bin", ".bin", ".rhosts", ".shosts", ".k5login", ".forward", ".terraformrc", ".pythonrc",
	".pythonrc.py",
	// A ninth red team's: gdb's XDG start-up file, the perl debugger's, npm init's
	// script, less's key file (it can set LESSOPEN), mailcap's viewers, the editor
	// sensible-editor runs, desktop entries a person's launcher runs.
	".config/gdb", ".perldb", ".npm-init.js", ".lesskey", ".config/lesskey", ".mailcap", ".selected_editor",
	".local/share/applications", ".config/mimeapps.list",
}

// projectProtected are the files under a workspace root that run code or steer an agent
// without a command line showing it: direnv's .envrc (run on cd), and the skill folders
// other agents (and agentbox's skill applet) load as instructions.
var projectProtected = []string{".envrc", ".claude/skills", ".agents/skills", ".claude/settings.json", ".claude/settings.local.json", ".codex", ".gemini/settings.json"}

// protectedWhy names the protection that covers abs ("" when none does), and the name
// an explicit rule's pattern must spell out to lift it (a catch-all such as ** does not).
func (p *Policy) protectedWhy(abs string) (why, key string) {
	if abs == "" {
		return "", ""
	}
	for _, f := range p.ConfigFiles {
		if abs == f {
			return "agentbox's own configuration (" + f + ")", filepath.Base(f)
		}
	}
	if d := p.UserConfigDir; d != "" {
		if _, ok := under(abs, d); ok {
			return "agentbox's user folder (" + d + ": its config and skills)", filepath.Base(d)
		}
	}
	if d := p.StateDir; d != "" {
		if _, ok := under(abs, d); ok {
			return "agentbox's state folder (" + d + ": sessions, grants and patch journals)", filepath.Base(d)
		}
	}
	for _, r := range p.Env.Roots {
		if rel, ok := under(abs, r); ok && (rel == ".agentbox" || strings.HasPrefix(rel, ".agentbox/")) &&
			!isPlanPath(abs) {
			return "the project's agentbox configuration (.agentbox/)", ".agentbox"
		}
		if rel, ok := under(abs, r); ok {
			for _, pp := range projectProtected {
				if rel == pp || strings.HasPrefix(rel, pp+"/") {
					return fmt.Sprintf("a file that runs code or steers an agent when the project is opened (%s)", pp), pp
				}
			}
		}
	}
	segs := strings.Split(filepath.ToSlash(abs), "/")
	for i, s := range segs {
		// .GIT is .git on a file system that ignores case (macOS, Windows).
		if !strings.EqualFold(s, ".git") {
			continue
		}
		rest := segs[i+1:]
		// .git/modules/NAME/... holds a submodule's git dir: judge what follows it.
		for len(rest) >= 2 && rest[0] == "modules" {
			rest = rest[2:]
		}
		switch {
		case len(rest) == 0:
			return "the git directory (.git)", ".git"
		case rest[0] == "config" && len(rest) == 1:
			return "git's configuration (.git/config: aliases, core.fsmonitor, hooksPath run code)", ".git"
		case rest[0] == "hooks":
			return "git hooks (.git/hooks run code on the next commit, checkout or push)", ".git"
		default:
			// commondir, config.worktree, worktrees/*/..., info/attributes,
			// objects/info/alternates: each chooses what git reads as its config or
			// runs. Nothing in .git is an applet's to write; git writes it.
			return "the git directory (.git/" + strings.Join(rest, "/") + ": git's own files choose its config and what it runs)", ".git"
		}
	}
	if home := p.Env.Home; home != "" {
		if rel, ok := under(abs, home); ok && rel != ".ssh/known_hosts" { // trusting a host key is routine
			for _, h := range homeProtected {
				if rel == h || strings.HasPrefix(rel, h+"/") {
					return fmt.Sprintf("a start-up or credential file in the home folder (~/%s)", h), h
				}
			}
		}
	}
	return "", ""
}

// under returns abs relative to dir when abs is dir or below it.
func under(abs, dir string) (string, bool) {
	dir = filepath.Clean(dir)
	if abs == dir {
		return ".", true
	}
	if strings.HasPrefix(abs, dir+"/") {
		return abs[len(dir)+1:], true
	}
	return "", false
}

// explicitFor reports whether r may let a write to a protected path through: a
// person's grant, or an allow rule of the user config or the manifest whose pattern
// spells out the protected name (key), so that no catch-all lifts the protection.
func explicitFor(r *Rule, key string) bool {
	if r == nil {
		return false
	}
	if r.Grant != "" {
		// A person's answer lifts it when it named this path, not a folder-wide grant
		// given for ordinary edits.
		return strings.Contains(r.Pattern, key)
	}
	return (r.Scope == ScopeUser || r.Scope == ScopeManifest) && r.path != nil && strings.Contains(r.Pattern, key)
}

// guardProtected turns an allow of a write to a protected path into ask, unless an
// explicit rule decided it.
func (p *Policy) guardProtected(c *Check, d Decision) Decision {
	if d.Action != Allow || c.kind != kindPath || c.Capability == CapFSRead {
		return d
	}
	why, key := p.protectedWhy(c.Path)
	if why == "" || explicitFor(d.Rule, key) {
		return d
	}
	// The mode (bypass) or a broader rule allowed it; an explicit allow that also
	// matches lets it through as that rule's decision.
	if r := p.best(p.rules, c, func(r *Rule) bool { return r.Action == Allow && explicitFor(r, key) }); r != nil {
		return Decision{Action: Allow, Rule: r, Part: c.Display, Reason: fmt.Sprintf("rule %s (it names this protected path)", r)}
	}
	return Decision{Action: Ask, Guard: why, Part: c.Display, Reason: fmt.Sprintf(
		"%s is protected: %s; no mode allows an agent to write it. Only a person's answer, or an allow rule in the user config or manifest that names this path, lets the write through",
		c.Display, why)}
}

// protectedFiles are the protected paths named absolutely (agentbox's config files and
// folders, the state folder, the home folder's start-up and credential files): a tree a
// command writes is decided on them where they lie below it, walked or not.
func (p *Policy) protectedFiles() []string {
	out := append([]string(nil), p.ConfigFiles...)
	for _, d := range []string{p.UserConfigDir, p.StateDir} {
		if d != "" {
			out = append(out, d)
		}
	}
	if p.Env.Home != "" {
		for _, h := range homeProtected {
			out = append(out, filepath.Join(p.Env.Home, h))
		}
	}
	return out
}

// protectedName reports whether a folder entry's name starts a protected path in a
// project: .git, .agentbox, and the files that run code or steer an agent.
func protectedName(name string) bool {
	if strings.EqualFold(name, ".git") || name == ".agentbox" {
		return true
	}
	for _, pp := range projectProtected {
		if first, _, _ := strings.Cut(pp, "/"); first == name {
			return true
		}
	}
	return false
}
