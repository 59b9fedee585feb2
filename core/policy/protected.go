package policy

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"
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
	// The fourteenth's: Python's user site (a .pth file there runs at every start),
	// gh's and cargo's credentials, start-up folders and psql's (it runs \! commands).
	".local/lib", ".config/gh", ".cargo/credentials", ".cargo/credentials.toml", ".profile.d", ".zshrc.d",
	".mkshrc", ".psqlrc",
}

// projectProtected are the files under a workspace root that run code or steer an agent
// without a command line showing it: direnv's .envrc (run on cd), and the skill folders
// other agents (and agentbox's skill applet) load as instructions.
var projectProtected = []string{".envrc", ".claude/skills", ".agents/skills", ".claude/settings.json", ".claude/settings.local.json", ".codex", ".gemini/settings.json"}

// protectedWhy names the protection that covers abs ("" when none does), and the name
// an explicit rule's pattern must spell out to lift it (a catch-all such as ** does not).
// Names are compared as a file system that ignores case, trailing dots or the code
// points HFS+ ignores would read them (foldName), so .GIT, .AGENTBOX and ~/.BASHRC are
// protected where they are the same files.
func (p *Policy) protectedWhy(abs string) (why, key string) {
	if abs == "" {
		return "", ""
	}
	for _, f := range p.ConfigFiles {
		if rel, ok := underFold(abs, f); ok && len(rel) == 0 {
			return "agentbox's own configuration (" + f + ")", filepath.Base(f)
		}
	}
	if d := p.UserConfigDir; d != "" {
		if _, ok := underFold(abs, d); ok {
			return "agentbox's user folder (" + d + ": its config and skills)", filepath.Base(d)
		}
	}
	if d := p.StateDir; d != "" {
		if _, ok := underFold(abs, d); ok {
			return "agentbox's state folder (" + d + ": sessions, grants and patch journals)", filepath.Base(d)
		}
	}
	for _, r := range p.Env.Roots {
		if rel, ok := underFold(abs, r); ok {
			for _, pp := range projectProtected {
				if startsWith(rel, pp) {
					return fmt.Sprintf("a file that runs code or steers an agent when the project is opened (%s)", pp), pp
				}
			}
		}
	}
	segs := strings.Split(filepath.ToSlash(abs), "/")
	for i, s := range segs {
		// A project's .agentbox at any depth: a session rooted there later loads it.
		if sameName(s, ".agentbox") && !(len(segs) > i+1 && segs[i+1] == "plans" && isPlanPath(abs)) {
			return "the project's agentbox configuration (.agentbox/)", ".agentbox"
		}
		if !sameName(s, ".git") {
			continue
		}
		rest := segs[i+1:]
		// .git/modules/NAME/... holds a submodule's git dir: judge what follows it.
		for len(rest) >= 2 && sameName(rest[0], "modules") {
			rest = rest[2:]
		}
		return gitWhy(rest)
	}
	// A .git that is a file ("gitdir: PATH", as worktrees, submodules and
	// --separate-git-dir write it) or a link puts the repository where no segment
	// says .git: the fourteenth red team planted a hook in gitstore/hooks that way.
	for _, g := range p.pointedGitDirs(abs) {
		if rel, ok := underFold(abs, g); ok {
			return gitWhy(rel)
		}
	}
	for _, b := range p.homeBases() {
		rel, ok := underFold(abs, b.dir)
		if !ok {
			continue
		}
		if b.as != "" {
			rel = append(strings.Split(b.as, "/"), rel...)
		}
		if len(rel) == 2 && sameName(rel[0], ".ssh") && sameName(rel[1], "known_hosts") {
			continue // trusting a host key is routine
		}
		for _, h := range homeProtected {
			if startsWith(rel, h) {
				return fmt.Sprintf("a start-up or credential file in the home folder (~/%s)", h), h
			}
		}
	}
	for _, l := range p.homeLinks() {
		if _, ok := underFold(abs, l.target); ok {
			return fmt.Sprintf("a start-up or credential file in the home folder (~/%s leads here through a link)", l.entry), l.entry
		}
	}
	return "", ""
}

// gitWhy names the protection of a path in a git folder, given what follows the folder.
func gitWhy(rest []string) (why, key string) {
	switch {
	case len(rest) == 0:
		return "the git directory (.git)", ".git"
	case len(rest) == 1 && sameName(rest[0], "config"):
		return "git's configuration (.git/config: aliases, core.fsmonitor, hooksPath run code)", ".git"
	case sameName(rest[0], "hooks"):
		return "git hooks (.git/hooks run code on the next commit, checkout or push)", ".git"
	default:
		// commondir, config.worktree, worktrees/*/..., info/attributes,
		// objects/info/alternates: each chooses what git reads as its config or
		// runs. Nothing in .git is an applet's to write; git writes it.
		return "the git directory (.git/" + strings.Join(rest, "/") + ": git's own files choose its config and what it runs)", ".git"
	}
}

// foldName is a path segment as a file system that ignores case, trailing dots and
// blanks (Windows) or the code points HFS+ ignores (macOS) reads it, as git reads .git
// (is_hfs_dotgit, is_ntfs_dotgit): .GIT, ".git." and ".g\u200cit" are all .git there.
func foldName(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || ('A' <= c && c <= 'Z') {
			clean = false
			break
		}
	}
	if !clean {
		s = strings.Map(func(r rune) rune {
			switch {
			case r == 0x200c || r == 0x200d || r == 0x200e || r == 0x200f || r == 0xfeff,
				0x202a <= r && r <= 0x202e, 0x206a <= r && r <= 0x206f:
				return -1
			}
			return foldRune(r)
		}, s)
	}
	if t := strings.TrimRight(s, ". "); t != "" {
		return t
	}
	return s
}

// foldRune is r as a case-insensitive file system compares it: the least rune of its
// simple case-folding orbit, lowered (ſ is s, the Kelvin sign is k: .baſhrc is
// .bashrc there).
func foldRune(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return unicode.ToLower(least)
}

// sameName reports whether a path segment names the protected name: folded (see
// foldName), or as its Windows short name (git~1 for .git).
func sameName(seg, name string) bool {
	f := foldName(seg)
	if f == name {
		return true
	}
	if i := strings.LastIndexByte(f, '~'); i > 0 && i == len(f)-2 && f[i+1] >= '1' && f[i+1] <= '9' {
		short := strings.TrimPrefix(name, ".")
		if len(short) > 6 {
			short = short[:6]
		}
		return f[:i] == short
	}
	return false
}

// startsWith reports whether the segments rel begin with the segments of entry (a
// protected path, slash-separated).
func startsWith(rel []string, entry string) bool {
	n := 0
	for part := range strings.SplitSeq(entry, "/") {
		if n >= len(rel) || !sameName(rel[n], strings.ToLower(part)) {
			return false
		}
		n++
	}
	return true
}

// underFold returns the segments of abs below dir when abs is dir or below it, with
// the segments compared as foldName reads them.
func underFold(abs, dir string) ([]string, bool) {
	if rel, ok := under(abs, dir); ok {
		if rel == "." {
			return nil, true
		}
		return strings.Split(rel, "/"), true
	}
	as := strings.Split(filepath.Clean(abs), "/")
	ds := strings.Split(filepath.Clean(dir), "/")
	if len(as) < len(ds) {
		return nil, false
	}
	for i, d := range ds {
		if foldName(as[i]) != foldName(d) {
			return nil, false
		}
	}
	return as[len(ds):], true
}

// homeBase is a folder the home list is read against, and what it stands for there:
// $HOME itself and where it leads through links, $XDG_CONFIG_HOME for ~/.config and
// $XDG_DATA_HOME for ~/.local/share (the fourteenth red team wrote git's global config
// in a non-default XDG_CONFIG_HOME, and everything below a HOME that is a link).
type homeBase struct{ dir, as string }

func (p *Policy) homeBases() []homeBase {
	var out []homeBase
	add := func(dir, as string) {
		if dir == "" {
			return
		}
		// As written (cleaned), and where the kernel takes it: HOME=/x/link/../h is
		// not /x/h (the fourteenth red team's second round).
		for _, d := range []string{filepath.Clean(dir), canonical(dir), physical(dir)} {
			if filepath.IsAbs(d) && !slices.ContainsFunc(out, func(b homeBase) bool { return b.dir == d && b.as == as }) {
				out = append(out, homeBase{d, as})
			}
		}
	}
	add(p.Env.Home, "")
	if p.Getenv != nil {
		for _, x := range []struct{ name, as string }{{"XDG_CONFIG_HOME", ".config"}, {"XDG_DATA_HOME", ".local/share"}} {
			if d := p.Getenv(x.name); filepath.IsAbs(d) { // a relative one is ignored, as XDGHome does
				add(d, x.as)
			}
		}
	}
	return out
}

// protectCache holds, per policy (one call), what the protected-file checks read off
// the file system.
type protectCache struct {
	once  sync.Once
	links []homeLink

	mu      sync.Mutex
	gitDirs map[string][]string // by folder: where its .git leads (gitDirAt)
}

// homeLink is where a protected home entry really lies when it, or a folder on its
// way, is a link: ~/.bashrc -> ~/dotfiles/bashrc makes dotfiles/bashrc the file bash
// sources (the fourteenth red team wrote it through the workspace).
type homeLink struct{ target, entry string }

func (p *Policy) homeLinks() []homeLink {
	if p.protect == nil || p.Env.Home == "" {
		return nil
	}
	p.protect.once.Do(func() {
		home := physical(p.Env.Home) // HOME=/x/link/../h: where the kernel takes it
		realHome := home
		budget := maxHomeLinkEntries
		add := func(link, entry string) string {
			t := physical(link)
			if t == link { // a link that leads nowhere yet: writing its target creates it
				if dest, err := os.Readlink(link); err == nil {
					if !filepath.IsAbs(dest) {
						dest = filepath.Dir(link) + "/" + dest
					}
					t = physical(dest)
				}
			}
			p.protect.links = append(p.protect.links, homeLink{t, entry})
			return t
		}
		// Links inside a protected folder lead to files it holds (a stow or chezmoi
		// layout: ~/.ssh/authorized_keys -> ~/dotfiles/ssh/authorized_keys, the
		// fourteenth red team's second round); a folder is walked a few levels deep,
		// every entry within a budget.
		var walk func(dir, entry string, depth int)
		walk = func(dir, entry string, depth int) {
			ents, err := os.ReadDir(dir)
			if err != nil {
				return
			}
			for _, e := range ents {
				if budget--; budget < 0 {
					return
				}
				path := filepath.Join(dir, e.Name())
				switch {
				case e.Type()&fs.ModeSymlink != 0:
					if t := add(path, entry); depth < 3 {
						if fi, err := os.Stat(t); err == nil && fi.IsDir() {
							walk(t, entry, depth+1)
						}
					}
				case e.IsDir() && depth < 3:
					walk(path, entry, depth+1)
				}
			}
		}
		seen := map[string]bool{}
		for _, h := range homeProtected {
			segs := strings.Split(h, "/")
			linked := false
			for i := range segs {
				pre := filepath.Join(home, filepath.Join(segs[:i+1]...))
				if seen[pre] {
					continue
				}
				seen[pre] = true
				fi, err := os.Lstat(pre)
				if err != nil {
					break // nothing deeper exists either
				}
				if fi.Mode()&fs.ModeSymlink == 0 {
					continue
				}
				linked = true
				if t := add(pre, strings.Join(segs[:i+1], "/")); t == filepath.Join(realHome, filepath.Join(segs[:i+1]...)) {
					p.protect.links = p.protect.links[:len(p.protect.links)-1] // it leads where it stands
				} else if fi, err := os.Stat(t); err == nil && fi.IsDir() {
					walk(t, h, 1)
				}
				break
			}
			full := filepath.Join(home, h)
			if fi, err := os.Lstat(full); !linked && err == nil && fi.IsDir() {
				walk(full, h, 1)
			}
		}
	})
	return p.protect.links
}

// maxHomeLinkEntries bounds the folder entries homeLinks reads (a ~/.local/bin of
// hundreds of links is read whole).
const maxHomeLinkEntries = 5000

// pointedGitDirs are the git folders in the folders above abs, and above each
// workspace root: a folder shaped like a git directory (a bare repository, a
// --separate-git-dir store, a worktree's folder), where a .git file or link there leads
// (with the common folder a worktree's points at), and $GIT_DIR and $GIT_COMMON_DIR.
// Their config and hooks run code as a .git folder's do; no path segment need say .git
// (the fourteenth red team planted hooks in gitstore/, substore/, vendor.git/).
func (p *Policy) pointedGitDirs(abs string) []string {
	var out []string
	seen := map[string]bool{}
	walk := func(from string) {
		for d := filepath.Clean(from); !seen[d]; d = filepath.Dir(d) {
			seen[d] = true
			out = append(out, p.gitDirAt(d)...)
		}
	}
	walk(filepath.Dir(abs))
	for _, r := range p.Env.Roots {
		walk(r)
	}
	if p.Getenv != nil {
		for _, v := range []string{"GIT_DIR", "GIT_COMMON_DIR"} {
			if d := p.Getenv(v); d != "" {
				out = append(out, physical(d))
			}
		}
	}
	return out
}

// gitDirAt is the git folders dir holds or is, read once per policy: a command writing
// a tree asks for every entry's folders.
func (p *Policy) gitDirAt(dir string) []string {
	if p.protect == nil {
		return gitDirAt(dir)
	}
	p.protect.mu.Lock()
	defer p.protect.mu.Unlock()
	g, ok := p.protect.gitDirs[dir]
	if !ok {
		if p.protect.gitDirs == nil {
			p.protect.gitDirs = map[string][]string{}
		}
		g = gitDirAt(dir)
		p.protect.gitDirs[dir] = g
	}
	return g
}

func gitDirAt(dir string) []string {
	var out []string
	if isGitDir(dir) {
		out = append(out, dir)
	}
	dot := filepath.Join(dir, ".git")
	fi, err := os.Lstat(dot)
	if err != nil {
		return out
	}
	var g string
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		g = physical(dot)
	case fi.Mode().IsRegular():
		t, ok := gitFileLine(dot, "gitdir: ")
		if !ok {
			return out
		}
		if !filepath.IsAbs(t) {
			t = dir + "/" + t // no cleaning: lnk/../store goes where the kernel takes it
		}
		g = physical(t)
	default:
		return out // a folder: its own segment says .git
	}
	out = append(out, g)
	if c, ok := gitFileLine(filepath.Join(g, "commondir"), ""); ok {
		if !filepath.IsAbs(c) {
			c = g + "/" + c
		}
		out = append(out, physical(c))
	}
	return out
}

// gitFileLine reads a git pointer file as git does: up to a NUL, after prefix, with
// only the line breaks at its end taken off (blanks in the path are the path's).
func gitFileLine(file, prefix string) (string, bool) {
	f, err := os.Open(file)
	if err != nil {
		return "", false
	}
	defer f.Close()
	// git reads the whole file; its path ends at a NUL or at the line breaks that end
	// the file, so a file padded past any size still names a folder (its first MiB
	// holds the path).
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return "", false
	}
	text, _, _ := strings.Cut(string(data), "\x00")
	text, ok := strings.CutPrefix(text, prefix)
	text = strings.TrimRight(text, "\r\n")
	return text, ok && text != ""
}

// isGitDir reports a folder git would take for a repository's git directory: a HEAD,
// and objects and refs or a commondir (git's is_git_directory).
func isGitDir(dir string) bool {
	if _, err := os.Lstat(filepath.Join(dir, "HEAD")); err != nil {
		return false
	}
	if _, err := os.Stat(filepath.Join(dir, "commondir")); err == nil {
		return true
	}
	o, err1 := os.Stat(filepath.Join(dir, "objects"))
	r, err2 := os.Stat(filepath.Join(dir, "refs"))
	return err1 == nil && err2 == nil && o.IsDir() && r.IsDir()
}

// physical is where the kernel takes p: links resolved as they come, so a ".." after a
// link leaves the folder the link leads to, which filepath.Clean would not; a relative
// p is taken from the working folder. A p that does not exist is only cleaned.
func physical(p string) string {
	if !filepath.IsAbs(p) {
		if wd, err := os.Getwd(); err == nil {
			p = wd + "/" + p
		}
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
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
	for _, b := range p.homeBases() {
		for _, h := range homeProtected {
			if rel, ok := strings.CutPrefix(h, b.as+"/"); ok || b.as == "" {
				if b.as == "" {
					rel = h
				}
				out = append(out, filepath.Join(b.dir, rel))
			}
		}
	}
	for _, l := range p.homeLinks() {
		out = append(out, l.target)
	}
	for _, r := range p.Env.Roots {
		out = append(out, p.pointedGitDirs(filepath.Join(r, "x"))...)
	}
	return out
}

// protectedName reports whether a folder entry's name starts a protected path in a
// project: .git, .agentbox, and the files that run code or steer an agent.
func protectedName(name string) bool {
	if sameName(name, ".git") || sameName(name, ".agentbox") {
		return true
	}
	for _, pp := range projectProtected {
		if first, _, _ := strings.Cut(pp, "/"); sameName(name, first) {
			return true
		}
	}
	return false
}
