package shell

import (
	"fmt"
	"os"
	"os/user"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Action is the watchdog's verdict on a line.
type Action string

const (
	Allow Action = "allow" // nothing dangerous found
	Flag  Action = "flag"  // let through, but worth a person's look (uncertain line, raw dd)
	Deny  Action = "deny"  // refused
)

// Verdict is what Check decided, and why.
type Verdict struct {
	Action Action `json:"action"`
	Reason string `json:"reason,omitempty"` // for deny and flag: what was found and what to do instead
	Rule   string `json:"rule,omitempty"`   // the rule that decided (see Rules), "uncertain" for an uncertain line
}

// Config tunes the watchdog. A nil list means the default list (DefaultConfig); an
// empty, non-nil list means none.
type Config struct {
	// Strict refuses lines the analyser is unsure of instead of flagging them.
	Strict bool
	// Home is the home directory, so /home/me/.bashrc is matched as ~/.bashrc.
	Home string
	// Disable names rules to switch off (see Rules).
	Disable []string
	// DenyCommands are command names (globs on the base name) refused outright.
	DenyCommands []string
	// ProtectedTrees are paths a recursive rm, chmod, chown, chgrp, find -delete or mv
	// may not take as an operand; an entry with a * covers what it matches (/usr/*).
	ProtectedTrees []string
	// ProtectedFiles are path globs nothing may write: redirections, tee, dd of=,
	// cp/mv/install/ln destinations, truncate, sed -i.
	ProtectedFiles []string
	// Downloaders fetch remote content; piped into an Interpreter they run it.
	Downloaders []string
	// Interpreters run a program read from their input.
	Interpreters []string
}

// Rules are the names of the watchdog's rules, for Config.Disable.
var Rules = []string{"rm-tree", "no-preserve-root", "deny-command", "dd-device", "dd-raw", "perm-tree",
	"fork-bomb", "remote-exec", "protected-write", "kill-all", "find-delete", "move-tree", "unknown-command",
	"unknown-operand", "cron", "disk-tool"}

// FailClosedRules are the refusals of what cannot be known before a line runs: a
// rule that allows the exact line lets it through (policy.Evaluate), since the
// person who wrote that rule has read it.
var FailClosedRules = []string{"unknown-command", "unknown-operand"}

// DefaultConfig returns the built-in lists.
func DefaultConfig() Config {
	return Config{
		DenyCommands: []string{"blkdiscard", "shutdown", "reboot", "halt", "poweroff", "killall5"},
		// The system's own top-level folders by name: /app, /data and /workspace of a
		// container are a project's, and chown -R node:node /app is everyday work.
		ProtectedTrees: []string{"/", "~", "~/*", "~/.*", "/bin", "/boot", "/dev", "/etc",
			"/etc/*", "/home", "/home/*", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/proc", "/root", "/sbin",
			"/srv", "/sys", "/usr", "/usr/*", "/usr/local/bin", "/usr/local/sbin", "/usr/local/lib", "/usr/local/share", "/usr/local/include", "/usr/local/etc", "/var", "/var/*", "/var/lib/*", "/run", "/root/*",
			"/tmp", "/snap", "/nix", "/nix/*", "/Applications",
			"/System", "/Library", "/Users", "/Users/*", "/private", "/mnt", "/media"},
		ProtectedFiles: []string{
			// block and memory devices
			"/dev/sd*", "/dev/hd*", "/dev/vd*", "/dev/xvd*", "/dev/nvme*", "/dev/mmcblk*", "/dev/md*",
			"/dev/dm-*", "/dev/loop*", "/dev/disk/*/*", "/dev/disk*", "/dev/rdisk*", "/dev/mapper/*", "/dev/mem",
			"/dev/kmem", "/dev/port", "/dev/sg*", "/dev/sr*", "/dev/fd0", "/dev/root", "/dev/nbd*", "/dev/rbd*",
			"/dev/zram*", "/dev/ubd*", "/dev/mtd*", "/dev/pmem*", "/dev/zd*", "/dev/ng*", "/dev/ada*", "/dev/ad[0-9]*",
			"/dev/da[0-9]*", "/sys/dev/block/*", "/dev/wd*", "/dev/dasd*", "/dev/emcpower*", "/dev/bcache*", "/dev/drbd*",
			"/dev/nvram", "/sys/block/*/device/*", "/sys/firmware/efi/efivars/*", "/boot/*/*",
			// accounts, privileges, boot and system start-up
			"/etc/passwd", "/etc/shadow", "/etc/group", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d/*",
			"/etc/ld.so.preload", "/etc/ld.so.conf", "/etc/profile", "/etc/profile.d/*", "/etc/bash.bashrc",
			"/etc/bashrc", "/etc/zshrc", "/etc/zsh/*", "/etc/environment", "/etc/crontab", "/etc/cron.*/*",
			"/etc/fstab", "/etc/hosts", "/etc/ssh/*", "/etc/pam.d/*", "/etc/security/*", "/etc/systemd/*/*",
			// the rest of /etc: start-up scripts, package-manager hooks, udev and modprobe
			// rules, completions, skeleton dotfiles, git's system config
			"/etc/*", "/etc/*/*", "/etc/*/*/*", "/lib/systemd/*/*", "/usr/lib/systemd/*/*", "/usr/lib/*/*",
			"/usr/lib/*/*/*", "/usr/share/bash-completion/*/*",
			"/var/spool/cron/*", "/var/spool/cron/crontabs/*", "/boot/*", "/proc/sysrq-trigger", "/proc/sys/*/*",
			"/proc/sys/*/*/*", "/sys/*/*",
			// shell start-up files and keys
			"~/.bashrc", "~/.bash_profile", "~/.bash_login", "~/.bash_logout", "~/.profile", "~/.zshrc",
			"~/.zshenv", "~/.zprofile", "~/.zlogin", "~/.zlogout", "~/.kshrc", "~/.mkshrc", "~/.cshrc", "~/.tcshrc",
			"~/.config/fish/config.fish", "~/.config/fish/conf.d/*", "~/.inputrc", "~/.ssh/*", "~/.gnupg/*",
			"~/.config/autostart/*", "~/.pam_environment", "~/.xinitrc", "~/.xprofile",
			"~/.bash_aliases", "~/.bashrc.d/*", "~/.config/zsh/*", "~/.oh-my-zsh/custom/*", "~/.login", "~/.logout",
			"~/.config/powershell/*", "~/.config/nushell/*", "~/.config/systemd/user/*", "~/.config/systemd/user/*/*",
			"~/.local/share/systemd/user/*", "~/.config/autostart-scripts/*", "~/.config/plasma-workspace/env/*",
			"~/.xsessionrc", "~/.xsession", "~/.local/lib/python*/site-packages/*", "~/.ipython/profile_*/startup/*",
			"~/.gdbinit", "~/.lldbinit", "~/.config/gdb/*", "~/.perldb", "~/.npm-init.js", "~/.lesskey", "~/.config/lesskey",
			"~/.mailcap", "~/.selected_editor", "~/.local/share/applications/*", "~/.config/mimeapps.list",
			"~/.Rprofile", "~/.irbrc", "~/.envrc", "~/.aws/*", "~/.netrc", "~/.git-credentials", "~/.ssh2/*",
			"~/.rhosts", "~/.shosts", "~/.k5login", "~/.forward",
			"/root/.*", "/root/.ssh/*", "/root/.config/*/*", "/home/*/.bashrc", "/home/*/.bash_profile", "/home/*/.profile", "/home/*/.zshrc",
			"/home/*/.zshenv", "/home/*/.ssh/*",
			// Files other programs run or load at start: completions, window managers'
			// autostart, version managers' init scripts, REPLs' start-up, tools' configs
			// that name commands (npm's script-shell, gh aliases, go's -toolexec).
			"~/.bash_completion", "~/.local/share/bash-completion/completions/*", "~/.config/i3/config",
			"~/.config/sway/config", "~/.config/hypr/*", "~/.config/openbox/autostart", "~/.nvm/nvm.sh",
			"~/.sdkman/bin/*", "~/.jupyter/*", "~/.config/ipython/profile_*/startup/*", "~/.psqlrc", "~/.sqliterc",
			"~/.ghci", "~/.pryrc", "~/.npmrc", "~/.yarnrc", "~/.yarnrc.yml", "~/.config/pip/pip.conf", "~/.pip/pip.conf",
			"~/.config/go/env", "~/.config/gh/config.yml", "~/.cargo/config", "~/.cargo/config.toml", "~/.docker/config.json",
			"/run/user/*/systemd/user/*", "/usr/lib/python3*/sitecustomize.py", "/usr/local/lib/python3*/*-packages/*.pth",
			"/usr/lib/python3*/*-packages/*.pth", "/usr/local/lib/python3*/*-packages/sitecustomize.py",
			"/usr/local/lib/python3*/*-packages/usercustomize.py", "/root/.pyenv/shims/*", "/usr/lib/node_modules/*/bin/*",
			// the system's programs and libraries (not /usr/local, where tools are installed)
			"/bin/*", "/sbin/*", "/usr/bin/*", "/usr/sbin/*", "/lib/*", "/lib64/*", "/usr/lib/*", "/usr/libexec/*",
		},
		Downloaders: []string{"curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-request", "GET", "nc", "ncat", "socat"},
		Interpreters: []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "python", "python2", "python3", "python3.*", "perl", "ruby", "node", "nodejs", "php", "lua", "Rscript", "pwsh", "osascript", "source", ".", "eval", "bun", "deno", "tclsh",
			"pypy", "pypy3", "ipython", "ipython3", "irb", "julia", "guile", "sbcl", "xonsh", "elvish", "nu", "lua5.*", "luajit", "powershell", "R", "at", "batch",
			"sqlite3", "ed", "m4", "expect", "wish", "rc", "ts-node", "tsx", "scala", "jshell", "ghci", "racket", "erl", "elixir", "octave", "groovy", "tcc",
			"gdb", "psql", "mysql", "mariadb", "swift", "kotlinc", "dotnet", "iex", "csi", "clisp", "sage", "gnuplot", "script"},
	}
}

// withDefaults fills nil lists from DefaultConfig.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.DenyCommands == nil {
		c.DenyCommands = d.DenyCommands
	}
	if c.ProtectedTrees == nil {
		c.ProtectedTrees = d.ProtectedTrees
	}
	if c.ProtectedFiles == nil {
		c.ProtectedFiles = d.ProtectedFiles
	}
	if c.Downloaders == nil {
		c.Downloaders = d.Downloaders
	}
	if c.Interpreters == nil {
		c.Interpreters = d.Interpreters
	}
	return c
}

// Check judges an analysed line: the first dangerous command found denies it; an
// uncertain line is denied in strict mode and flagged otherwise; a raw dd is
// flagged. A nil analysis is treated as an unparseable line.
func Check(an *Analysis, cfg Config) Verdict {
	if an == nil {
		an = &Analysis{Uncertain: []string{"the line was not analysed"}}
	}
	w := watch{cfg: cfg.withDefaults(), home: an.Home, nocase: an.NoCaseGlob}
	if w.cfg.Home != "" {
		w.home = w.cfg.Home
	}
	if len(an.Links) > 0 {
		// Links the line makes resolve as they will when the later commands run.
		w.links = an.Links
		w.real = map[string]string{}
		for link, target := range an.Links {
			w.real["="+link] = realPath(target, w.real)
		}
	}
	var flag *Verdict
	for i := range an.Commands {
		c := &an.Commands[i]
		v := w.command(an, i, c)
		switch v.Action {
		case Deny:
			return v
		case Flag:
			if flag == nil {
				flag = &v
			}
		}
	}
	if len(an.Unknown) > 0 && w.on("unknown-command") {
		return deny("unknown-command", "refused: %s. The watchdog judges what it cannot know as the worst it could be: write the command with literal names and arguments, or ask the user to allow this exact line.", strings.Join(an.Unknown, "; "))
	}
	if len(an.Uncertain) > 0 {
		reason := "the line cannot be analysed with certainty: " + strings.Join(an.Uncertain, "; ")
		if cfg.Strict {
			return Verdict{Action: Deny, Rule: "uncertain", Reason: reason +
				". Strict mode refuses such lines: write the command with literal names and arguments."}
		}
		if flag == nil {
			flag = &Verdict{Action: Flag, Rule: "uncertain", Reason: reason}
		}
	}
	if flag != nil {
		return *flag
	}
	return Verdict{Action: Allow}
}

type watch struct {
	cfg    Config
	home   string
	nocase bool              // the line may turn on nocaseglob (Analysis.NoCaseGlob)
	dir    string            // the directory of the command being judged ("" unknown)
	real   map[string]string // realPath's answers for this line: one file-system walk per path
	links  map[string]string // links the line makes (Analysis.Links)
	interp map[string]bool   // interpreter's answers for this line
	// The lists as sets, built on first use: a line can hold hundreds of paths.
	files, interpreters, denied *patternSet
	folders                     map[string]bool // the folders that hold protected files (containsProtected)
}

// patternSet is a list of globs split for speed: the exact names in a map, the globs
// by the literal prefix each starts with.
type patternSet struct {
	exact map[string]bool
	globs []globPattern
}

type globPattern struct{ prefix, pattern string }

func newPatternSet(list []string) *patternSet {
	s := &patternSet{exact: map[string]bool{}}
	for _, p := range list {
		i := strings.IndexAny(p, "*?[\\")
		if i < 0 {
			s.exact[p] = true
			continue
		}
		s.globs = append(s.globs, globPattern{prefix: p[:i], pattern: bashPattern(p)})
	}
	return s
}

// match reports whether name is in the set or matches one of its globs.
func (s *patternSet) match(name string) bool {
	if s.exact[name] {
		return true
	}
	for _, g := range s.globs {
		if strings.HasPrefix(name, g.prefix) {
			if ok, _ := path.Match(g.pattern, name); ok {
				return true
			}
		}
	}
	return false
}

func (w *watch) on(rule string) bool { return !slices.Contains(w.cfg.Disable, rule) }

func deny(rule, format string, args ...any) Verdict {
	return Verdict{Action: Deny, Rule: rule, Reason: fmt.Sprintf(format, args...)}
}

// runsDownloaded reports an interpreter (or source) at i whose script is a file a
// downloader wrote earlier on the line: curl -o x.sh URL && bash x.sh, wget URL/x.sh;
// . x.sh, curl URL > x.sh; sh x.sh.
func (w *watch) runsDownloaded(an *Analysis, i int, c *SimpleCommand, name string) (string, bool) {
	fetched := map[string]bool{}
	for j := 0; j < i; j++ {
		d := an.Commands[j]
		if len(d.Argv) == 0 || !w.downloader(base(d.Argv[0])) {
			continue
		}
		dn, args := base(d.Argv[0]), d.Argv[1:]
		for _, t := range writeTargets(dn, args) {
			fetched[w.norm(t)] = true
		}
		for _, r := range d.Redirects {
			if isWrite(r.Op) && r.Fd != "2" {
				fetched[w.norm(r.Target)] = true
			}
		}
		if dn == "curl" && slices.ContainsFunc(args, func(a string) bool {
			return a == "--remote-name" || a == "--remote-name-all" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "O")
		}) || dn == "wget" && !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-O") || strings.HasPrefix(a, "--output-document") }) {
			for _, a := range args {
				if strings.Contains(a, "://") {
					fetched[w.norm(path.Base(a))] = true
				}
			}
		}
	}
	if len(fetched) == 0 {
		return "", false
	}
	for _, a := range c.Argv[1:] {
		if !strings.HasPrefix(a, "-") && fetched[w.norm(a)] {
			return a, true
		}
	}
	return "", false
}

// checkoutIndexPrefix spells checkout-index's abbreviated --prefix whole: git takes
// --pref=P, --p=P (the fifteenth red team wrote the index's files into home with it).
func checkoutIndexPrefix(sub string, rest []string) []string {
	if sub != "checkout-index" {
		return rest
	}
	out := slices.Clone(rest)
	for i, a := range out {
		if n, v, ok := strings.Cut(a, "="); ok && len(n) >= 3 && n != "--prefix" && strings.HasPrefix("--prefix", n) {
			out[i] = "--prefix=" + v
		}
	}
	return out
}

// gitWorkTree is the work tree a git command works on when its options name one (-C
// DIR, --work-tree DIR), and its subcommand.
func gitWorkTree(args []string) (tree, sub string, ok bool) {
	for k := 0; k < len(args); k++ {
		a := args[k]
		switch {
		case (a == "-C" || a == "--work-tree") && k+1 < len(args):
			if a == "--work-tree" || tree == "" {
				tree = args[k+1]
			}
			k++
		case strings.HasPrefix(a, "--work-tree="):
			tree = a[len("--work-tree="):]
		case a == "-c" || a == "--git-dir" || a == "--namespace" || a == "--config-env":
			k++
		case strings.HasPrefix(a, "-"):
		default:
			return tree, a, tree != ""
		}
	}
	return "", "", false
}

// unlimitedProcs reports xargs -P 0 (as many parallel processes as it likes).
func unlimitedProcs(args []string) bool {
	for k, a := range args {
		n := ""
		switch {
		case (a == "-P" || a == "--max-procs" || a == "-j" || a == "--jobs") && k+1 < len(args):
			n = args[k+1]
		case strings.HasPrefix(a, "-P") || strings.HasPrefix(a, "-j"):
			n = a[2:]
		case strings.HasPrefix(a, "--max-procs=") || strings.HasPrefix(a, "--jobs="):
			_, n, _ = strings.Cut(a, "=")
		}
		// 0 is no limit; a thousand and more is none in effect.
		if v, err := strconv.Atoi(strings.TrimSuffix(n, "%")); err == nil && (v == 0 || v >= 1000) && !strings.HasSuffix(n, "%") {
			return true
		}
	}
	return false
}

// fedEndlessly reports a pipeline stage fed by yes or a seq of more than 100,000 lines.
func fedEndlessly(an *Analysis, i int, c *SimpleCommand) bool {
	for j := 0; j < i; j++ {
		d := an.Commands[j]
		if d.Pipeline != c.Pipeline || len(d.Argv) == 0 {
			continue
		}
		if d.Loop {
			return true // while :; do echo 1; done | xargs ...
		}
		switch base(d.Argv[0]) {
		case "yes":
			return true
		case "cat", "tail":
			// cat /dev/zero, tail -f: a stream that does not end.
			if slices.ContainsFunc(d.Argv[1:], func(a string) bool {
				return a == "/dev/zero" || a == "/dev/urandom" || a == "/dev/random" || a == "-f" || a == "-F" || a == "--follow"
			}) {
				return true
			}
		case "seq":
			last := strings.ToLower(d.Argv[len(d.Argv)-1])
			if n, err := strconv.Atoi(last); err == nil && n > 100_000 || strings.HasPrefix(last, "inf") {
				return true // seq inf never ends
			}
		}
	}
	return false
}

// recursive reports a function of the line that calls itself.
func recursive(an *Analysis, fn string) bool {
	for _, d := range an.Commands {
		if d.Func == fn && len(d.Argv) > 0 && d.Argv[0] == fn {
			return true
		}
	}
	return false
}

// killTargets refuses a kill of pid 1 or -1 however it is spelled (01, +1, ' -1',
// -- -0001, $((2-1))), and a kill whose targets come from a list of every process
// ($(pgrep .), ps -e | xargs kill); a pid read from a file, $! and %N are fine.
func (w *watch) killTargets(an *Analysis, c *SimpleCommand) (Verdict, bool) {
	if killSignal(c.Argv[1:]) == "0" {
		return Verdict{}, false // kill -0 / -s 0 only asks whether the process exists
	}
	if n := len(c.Argv) - 1; n >= maxBraces {
		return deny("kill-all", "refused: kill is given %d or more targets at once (a range like {2..99999}), nearly every process. Kill the processes by their own pids.", n), true
	}
	operands := false
	for k := 1; k < len(c.Argv); k++ {
		a := strings.TrimSpace(c.Argv[k])
		if c.Partial != nil && c.Partial[k] {
			// A pid read from a file is the usual case; pids listed for every process
			// on the line (pgrep ., ps -e) are kill -1 by another name.
			if lister, ok := listsEveryProcess(an); ok {
				return deny("kill-all", "refused: kill gets its targets from %s, which lists every process, this session's and the system's among them. Kill the process by its pid or its exact name.", lister), true
			}
			if strings.HasPrefix(a, "-") && !operands && w.on("unknown-operand") {
				return deny("unknown-operand", "refused: kill %s...: a negative target computed at run time could be -1, every process. Kill a literal pid, $!, or a %%job.", a), true
			}
			continue
		}
		if a == "--" {
			operands = true
			continue
		}
		if !operands && (a == "-s" || a == "-n") && k+1 < len(c.Argv) {
			k++
			continue
		}
		neg := strings.HasPrefix(a, "-")
		num := strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "+"), "0")
		if num == "" && strings.Trim(a, "-+0") == "" && strings.Contains(a, "0") {
			num = "0"
		}
		if num != "1" {
			continue
		}
		if neg && !operands && !strings.HasPrefix(a, "-0") && a == "-1" && k < len(c.Argv)-1 {
			continue // kill -1 PID: signal 1 (HUP) to PID
		}
		if neg {
			return deny("kill-all", "refused: kill %s signals every process you may signal. Kill the process by its own pid.", a), true
		}
		return deny("kill-all", "refused: kill %s signals init, the system's first process.", a), true
	}
	return Verdict{}, false
}

// killSignal is the signal kill's options name ("" for the default, TERM): -0, -s 0,
// --signal 0, -SIGKILL, -n 9.
func killSignal(args []string) string {
	for k, a := range args {
		switch {
		case a == "--":
			return ""
		case (a == "-s" || a == "-n" || a == "--signal") && k+1 < len(args):
			return strings.TrimPrefix(strings.ToUpper(args[k+1]), "SIG")
		case strings.HasPrefix(a, "--signal="):
			return strings.TrimPrefix(strings.ToUpper(a[len("--signal="):]), "SIG")
		case strings.HasPrefix(a, "-s") && len(a) > 2 && !strings.HasPrefix(a, "-sig"):
			return strings.TrimPrefix(strings.ToUpper(a[2:]), "SIG")
		case strings.HasPrefix(a, "-") && len(a) > 1 && a != "-l" && a != "-L":
			return strings.TrimPrefix(strings.ToUpper(a[1:]), "SIG")
		case !strings.HasPrefix(a, "-"):
			return ""
		}
	}
	return ""
}

// listsEveryProcess finds a command on the line that lists every process: pgrep or
// pidof with a pattern matching all, ps -e / -A / ax.
func listsEveryProcess(an *Analysis) (string, bool) {
	for _, d := range an.Commands {
		if len(d.Argv) == 0 {
			continue
		}
		name, args := base(d.Argv[0]), d.Argv[1:]
		switch name {
		case "pgrep":
			if _, all := killsEverything(name, args); all {
				return strings.Join(d.Argv, " "), true
			}
		case "ps":
			for k, a := range args {
				if a == "-e" || a == "-A" || a == "ax" || a == "aux" || a == "-ax" || a == "-aux" || strings.HasPrefix(a, "-e") && len(a) <= 4 {
					return strings.Join(d.Argv, " "), true
				}
				if (a == "-p" || a == "--pid") && k+1 < len(args) && strings.TrimLeft(args[k+1], "0") == "1" {
					return strings.Join(d.Argv, " "), true // init's pid
				}
			}
		case "pidof":
			for _, a := range args {
				switch path.Base(a) {
				case "init", "systemd", "sshd", "dbus-daemon", "launchd":
					return strings.Join(d.Argv, " "), true
				}
			}
		case "seq":
			// kill $(seq 2 65535): every pid.
			if n, err := strconv.Atoi(args[len(args)-1]); err == nil && n > 1000 || len(args) > 0 && strings.HasPrefix(strings.ToLower(args[len(args)-1]), "inf") {
				return strings.Join(d.Argv, " "), true
			}
		case "lsof", "fuser":
			for _, a := range args {
				if a == "/" || a == "-m" {
					return strings.Join(d.Argv, " "), true // every process with a file open on /
				}
			}
		case "ls", "cat", "head", "cut", "find", "grep":
			// Reading /proc itself (ls /proc, /proc/1/stat) lists processes or names init.
			for _, a := range args {
				if a == "/proc" || a == "/proc/" || strings.HasPrefix(a, "/proc/1/") || a == "/proc/[0-9]*" {
					return strings.Join(d.Argv, " "), true
				}
			}
		}
	}
	return "", false
}

// killsEverything refuses pkill and killall patterns that match every process (., ”,
// .*), an inverted match, and the system's own daemons.
func killsEverything(name string, args []string) (Verdict, bool) {
	valued := map[string]bool{"-s": true, "--signal": true, "-u": true, "-U": true, "-g": true, "-G": true, "-P": true, "-t": true, "-F": true, "-n": true, "-o": true, "--ns": true, "--nslist": true}
	for k := 0; k < len(args); k++ {
		a := args[k]
		if a == "-v" || a == "--inverse" {
			return deny("kill-all", "refused: %s -v signals every process that does not match, this session's and the system's among them.", name), true
		}
		if a == "--euid" || a == "-O" || a == "--older" || a == "-o" && name == "killall" || a == "--older-than" || strings.HasPrefix(a, "--older") {
			return deny("kill-all", "refused: %s %s signals processes by owner or age, which takes in the system's own. Kill the process by its pid or its exact name.", name, a), true
		}
		if valued[a] {
			k++
			continue
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		full := slices.Contains(args, "-f") || slices.Contains(args, "--full")
		if p := strings.Trim(a, "^$"); len(p) <= 2 && name != "kill" || strings.ContainsAny(p, "[]*+?") || full && (p == "/" || len(p) <= 3) {
			return deny("kill-all", "refused: %s %q matches nearly every process, the system's among them. Kill the process by its pid or its exact name.", name, a), true
		}
		switch strings.Trim(a, "^$") {
		case "", ".", ".*", ".+", "*":
			return deny("kill-all", "refused: %s %q matches every process. Kill the process by its pid or its exact name.", name, a), true
		case "init", "systemd", "sshd", "dbus-daemon", "launchd":
			return deny("kill-all", "refused: %s %s stops a process the system needs to keep running.", name, a), true
		}
	}
	return Verdict{}, false
}

// persists refuses what schedules commands to run later or at every boot or login:
// at and batch, systemctl enable/link/edit, systemd-run timers, loginctl enable-linger.
func persists(name string, args []string) (Verdict, bool) {
	switch name {
	case "fcrontab", "crond", "cron", "fcron", "anacron", "atd", "incrond", "incrontab":
		// Another cron's table, or a cron daemon the line starts on tables it chooses
		// (the thirteenth red team: busybox crond -c .).
		if name == "fcrontab" || name == "incrontab" {
			if slices.Contains(args, "-l") {
				return Verdict{}, false
			}
		}
		return deny("cron", "refused: %s runs commands later, from a table, without anyone watching. Ask the user to set it up.", name), true
	case "at", "batch":
		if len(args) == 0 || !slices.ContainsFunc(args, func(a string) bool { return a == "-l" || a == "-r" || a == "-d" || a == "-c" }) {
			return deny("cron", "refused: %s schedules commands to run later without anyone watching. Ask the user to set it up.", name), true
		}
	case "systemctl":
		for _, a := range args {
			switch a {
			case "enable", "link", "edit", "add-wants", "add-requires", "preset", "preset-all", "set-environment", "import-environment":
				return deny("cron", "refused: systemctl %s makes a unit start at boot or login, or changes what units run with. Ask the user to set it up.", a), true
			}
		}
	case "systemd-run":
		for _, a := range args {
			if strings.HasPrefix(a, "--on-") || strings.HasPrefix(a, "--timer-property") {
				return deny("cron", "refused: systemd-run %s schedules a command to run later. Ask the user to set it up.", a), true
			}
		}
	case "loginctl":
		if slices.Contains(args, "enable-linger") {
			return deny("cron", "refused: loginctl enable-linger keeps a user's services running after logout. Ask the user to set it up."), true
		}
	case "direnv":
		if len(args) > 0 && (args[0] == "allow" || args[0] == "permit" || args[0] == "grant") {
			return deny("cron", "refused: direnv allow makes the folder's .envrc run whenever a person enters it. Ask the user to allow it."), true
		}
	case "systemd-tmpfiles":
		if slices.Contains(args, "--create") || slices.Contains(args, "--boot") {
			return deny("cron", "refused: systemd-tmpfiles --create makes the files and links a configuration names, anywhere. Ask the user to run it."), true
		}
	}
	return Verdict{}, false
}

// extracts reports a command that unpacks files into its working folder: tar x,
// unzip, cpio -i, 7z x.
func extracts(name string, args []string) bool {
	switch name {
	case "unzip":
		return !slices.Contains(args, "-l") && !slices.Contains(args, "-t")
	case "cpio":
		return hasFlag(args, "i", "extract")
	case "7z", "7za", "7zz":
		return len(args) > 0 && (args[0] == "x" || args[0] == "e")
	case "unsquashfs":
		return true
	case "git":
		// git pull, checkout, reset --hard ... write the repository's files into the
		// work tree: the folder the command runs in.
		sub, rest := gitSubcommand(args)
		switch sub {
		case "pull", "merge", "checkout", "switch", "restore", "am", "cherry-pick", "rebase", "apply", "read-tree":
			return true
		case "reset":
			return slices.Contains(rest, "--hard")
		case "stash":
			return len(rest) > 0 && (rest[0] == "pop" || rest[0] == "apply")
		}
		return false
	case "patch":
		// patch with no file operand writes the files its diff names, in its folder.
		return len(patchOperands(args)) == 0 && !hasFlag(args, "o", "output") && !slices.Contains(args, "--dry-run")
	case "tar", "bsdtar":
		for _, a := range args {
			if a == "--extract" || a == "--get" {
				return true
			}
			if !strings.HasPrefix(a, "--") && strings.Contains(strings.TrimPrefix(a, "-"), "x") && (strings.HasPrefix(a, "-") || a == args[0]) {
				return true
			}
		}
	}
	return false
}

// chmodModeAt is the index of chmod's mode (chown's owner): the first argument that is
// not an option, where a symbolic mode may itself start with - (chmod -x FILE).
func chmodModeAt(name string, argv []string) int {
	for k := 1; k < len(argv); k++ {
		a := argv[k]
		if name == "chmod" && len(a) > 1 && a[0] == '-' && strings.Trim(a[1:], "rwxXstugo") == "" && strings.Trim(a[1:], "Rvcf") != "" {
			return k // -x, -w, -rwx: a mode, not an option
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			return k
		}
	}
	return len(argv)
}

// firstOperand is the index of the first argument from "from" on that is not an
// option.
func firstOperand(argv []string, from int) int {
	for k := from; k < len(argv); k++ {
		if !strings.HasPrefix(argv[k], "-") || argv[k] == "-" {
			return k
		}
	}
	return len(argv)
}

// intoDirs are the files cp, mv, install and ln create when their destination is a
// directory (-t DIR, or an existing directory as the last operand): DIR/name for each
// source, so cp -t ~ .bashrc writes ~/.bashrc.
func (w *watch) intoDirs(name string, args []string) []string {
	switch name {
	case "cp", "mv", "install", "ln", "rsync", "scp":
	default:
		return nil
	}
	var dir string
	var srcs []string
	for k := 0; k < len(args); k++ {
		a := args[k]
		switch {
		case (a == "-t" || len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.HasSuffix(a, "t")) && k+1 < len(args):
			dir = args[k+1] // -t DIR, and a cluster ending in it (ln -sft DIR)
			k++
		case strings.HasPrefix(a, "--target-directory="):
			dir = a[len("--target-directory="):]
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			srcs = append(srcs, a)
		}
	}
	if dir == "" && len(srcs) >= 2 {
		last := srcs[len(srcs)-1]
		if fi, err := os.Stat(w.abs(last)); err == nil && fi.IsDir() {
			dir, srcs = last, srcs[:len(srcs)-1]
		}
	}
	if dir == "" {
		return nil
	}
	var out []string
	for _, src := range srcs {
		out = append(out, strings.TrimSuffix(dir, "/")+"/"+path.Base(src))
	}
	return out
}

// abs is a path as the file system would resolve it, home expanded.
func (w *watch) abs(p string) string {
	if home := strings.TrimSuffix(w.home, "/"); home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
		p = home + p[1:]
	}
	if !path.IsAbs(p) && w.dir != "" {
		p = w.dir + "/" + p
	}
	return p
}

// unknownOperand refuses a dangerous command (rm -r, chmod -R, find -delete) with an
// operand whose value cannot be known before the line runs: it is judged as the
// worst it could be.
func (w *watch) unknownOperand(c *SimpleCommand, from int, what string) (Verdict, bool) {
	if !w.on("unknown-operand") || c.Partial == nil {
		return Verdict{}, false
	}
	for k := from; k < len(c.Argv); k++ {
		if c.Partial[k] && !(strings.HasPrefix(c.Argv[k], "-") && c.Argv[k] != "-") {
			shown := c.Argv[k] + "..."
			if c.Argv[k] == "" {
				shown = "an operand computed at run time"
			}
			return deny("unknown-operand", "refused: %s on %s: the operand cannot be known before the line runs (command substitution, read, xargs input or an unset variable), so it could be / or the home folder. Name the directory literally, or ask the user to allow this exact line.", what, shown), true
		}
	}
	return Verdict{}, false
}

// forkOneLiner spots the fork bombs of other languages' one-liners: perl -e 'fork
// while 1', python -c 'while True: os.fork()', ruby -e 'loop { fork }'.
func forkOneLiner(name string, args []string) bool {
	switch {
	case name == "perl" || name == "ruby" || name == "node" || name == "nodejs" || name == "php" || strings.HasPrefix(name, "python") || strings.HasSuffix(name, "awk") || strings.HasPrefix(name, "lua"):
	default:
		return false
	}
	for k, a := range args {
		if (a == "-e" || a == "-c" || a == "-E" || a == "-r") && k+1 < len(args) || strings.HasSuffix(name, "awk") && !strings.HasPrefix(a, "-") {
			code := a
			if k+1 < len(args) && strings.HasPrefix(a, "-") {
				code = args[k+1]
			}
			spawns := strings.Contains(code, "fork") || strings.Contains(code, "Popen") || strings.Contains(code, "spawn") || strings.Contains(code, "system(") || strings.Contains(code, "Process(") || strings.Contains(code, "execute(")
			loops := strings.Contains(code, "while") || strings.Contains(code, "until") || strings.Contains(code, "loop") || strings.Contains(code, "for ") || strings.Contains(code, "for(") ||
				strings.Contains(code, "redo") || strings.Contains(code, "goto") || strings.Contains(code, "times") || strings.Contains(code, "repeat")
			if spawns && loops {
				return true
			}
		}
	}
	return false
}

// mkfsTools make a file system (or swap) on what they are given: a device, or an image
// file in the workspace (mkfs.ext4 disk.img), which is ordinary work.
var mkfsTools = []string{"mkfs", "mkfs.*", "mke2fs", "mkswap", "mkntfs", "mkdosfs", "mkexfatfs", "mkreiserfs",
	"mkudffs", "mformat", "newfs", "newfs_*", "mkfs_*"}

// mkfsSet is mkfsTools as a set, built once.
var mkfsSet = sync.OnceValue(func() *patternSet { return newPatternSet(mkfsTools) })

// onDevice reports an operand that is a device, or cannot be known.
func onDevice(c *SimpleCommand, from int) (string, bool) {
	for k := from; k < len(c.Argv); k++ {
		a := c.Argv[k]
		if c.Partial != nil && c.Partial[k] && !strings.HasPrefix(a, "-") {
			return a + "...", true
		}
		if strings.HasPrefix(a, "/dev/") || strings.HasPrefix(a, "/sys/") || strings.Contains(a, ":/dev/") {
			return a, true
		}
	}
	return "", false
}

// diskTool refuses partitioning and disk-wiping tools that destroy a disk's layout.
func diskTool(name string, args []string) (Verdict, bool) {
	switch name {
	case "sgdisk":
		for _, a := range args {
			if a == "-Z" || a == "--zap-all" || a == "-z" || a == "--zap" || a == "-o" || a == "--clear" || strings.HasPrefix(a, "-d") || strings.HasPrefix(a, "--delete") {
				return deny("disk-tool", "refused: sgdisk %s rewrites or wipes a disk's partition table.", a), true
			}
		}
	case "parted":
		for _, a := range args {
			switch a {
			case "rm", "mklabel", "mkpart", "resizepart", "mktable":
				return deny("disk-tool", "refused: parted %s changes a disk's partitions.", a), true
			}
		}
	case "cryptsetup":
		for _, a := range args {
			if a == "luksFormat" || a == "erase" || a == "luksErase" || a == "reencrypt" {
				return deny("disk-tool", "refused: cryptsetup %s destroys the data on a device.", a), true
			}
		}
	case "badblocks", "nvme", "hdparm", "sg_format", "mdadm", "pvremove", "lvremove", "vgremove", "zpool", "zfs",
		"dmsetup", "xfs_repair", "debugfs", "tune2fs", "resize2fs", "e2fsck", "btrfs", "flashrom", "efibootmgr", "pvcreate", "partx", "delpart", "blkdiscard":
		for _, a := range args {
			bad := false
			switch name {
			case "badblocks":
				bad = a == "-w" || a == "-n"
			case "nvme":
				bad = a == "format" || a == "sanitize" || a == "delete-ns"
			case "hdparm":
				bad = strings.HasPrefix(a, "--security-erase") || a == "--write-sector" || a == "--trim-sector-ranges" || a == "--dco-restore"
			case "sg_format":
				bad = true
			case "mdadm":
				bad = a == "--zero-superblock" || a == "--create" || a == "-C"
			case "pvremove", "lvremove", "vgremove", "blkdiscard", "delpart":
				bad = true
			case "pvcreate":
				bad = strings.HasPrefix(a, "/dev/")
			case "partx":
				bad = a == "-d" || a == "--delete"
			case "zpool":
				bad = a == "destroy" || a == "labelclear" || a == "create" || a == "add" || a == "attach" || a == "replace"
			case "zfs":
				bad = a == "destroy"
			case "dmsetup":
				bad = a == "remove_all" || a == "remove" || a == "wipe_table"
			case "xfs_repair":
				bad = a == "-L"
			case "debugfs":
				bad = a == "-w"
			case "tune2fs":
				bad = strings.HasPrefix(a, "^has_journal")
			case "resize2fs", "e2fsck":
				bad = a == "-y" || a == "-f" && name == "resize2fs"
			case "btrfs":
				bad = a == "delete" && slices.Contains(args, "subvolume")
			case "flashrom":
				bad = a == "-w" || a == "--write" || a == "-E" || a == "--erase"
			case "efibootmgr":
				bad = a == "-B" || a == "--delete-bootnum"
			}
			if bad {
				return deny("disk-tool", "refused: %s %s erases or rewrites a disk, volume, file system or firmware.", name, a), true
			}
		}
	case "fdisk", "sfdisk", "gdisk", "cfdisk":
		readOnly := slices.ContainsFunc(args, func(a string) bool {
			return a == "-l" || a == "--list" || a == "-d" || a == "--dump" || a == "-J" || a == "--json" || a == "-s" || a == "--show-size"
		})
		for _, a := range args {
			if strings.HasPrefix(a, "/dev/") && !readOnly {
				return deny("disk-tool", "refused: %s edits the partition table of %s.", name, a), true
			}
		}
	}
	return Verdict{}, false
}

// remoteExec finds downloaded code being run: a downloader piped (possibly through
// other stages) into an interpreter, or an interpreter/eval/source fed by a command
// or process substitution that downloads.
func (w *watch) remoteExec(an *Analysis, i int, c *SimpleCommand, name string) (Verdict, bool) {
	if !w.interpreter(name) && !awkRunsInput(name, c.Argv[1:]) {
		return Verdict{}, false
	}
	// curl ... | python3 -m json.tool: an interpreter that runs its own program reads
	// the download piped in as data, unless that program evaluates what it reads
	// (exec(sys.stdin.read()), eval STDIN.read).
	stdinIsData := w.interpreter(name) && ownProgram(name, c.Argv[1:]) && !evalsStdin(c.Argv[1:])
	if lib, ok := evalsDownload(c.Argv[1:]); ok && w.interpreter(name) {
		return deny("remote-exec", "refused: the %s one-liner fetches code with %s and runs it unseen. Download to a file, read it, then run it.", name, lib), true
	}
	if c.Context == "procsubst" && w.interpreter(name) && !stdinIsData {
		// curl URL > >(sh), curl URL | tee >(sh): the substitution reads the download.
		for j := range an.Commands {
			if d := &an.Commands[j]; len(d.Argv) > 0 && w.downloader(base(d.Argv[0])) {
				return deny("remote-exec", "refused: %s in a process substitution reads what %s downloads and runs it unseen. Download to a file, read it, then run it.", name, base(d.Argv[0])), true
			}
		}
	}
	for j := range an.Commands {
		d := &an.Commands[j]
		if len(d.Argv) == 0 || !w.downloader(base(d.Argv[0])) {
			continue
		}
		dn := base(d.Argv[0])
		if c.Pipeline != 0 && d.Pipeline == c.Pipeline && j < i && !stdinIsData {
			return deny("remote-exec", "refused: %s output is piped into %s, which runs code downloaded from the network unseen. Download to a file, read it, then run it.", dn, name), true
		}
		if d.Context == "cmdsubst" || d.Context == "procsubst" {
			return deny("remote-exec", "refused: %s runs what %s downloads (through a substitution). Download to a file, read it, then run it.", name, dn), true
		}
	}
	return Verdict{}, false
}

// tempCleanup reports a find over the temporary folders only (/tmp, /var/tmp) whose
// expression narrows what it deletes by name or path (find /tmp -name 'build-*'
// -mtime +7 -delete): cleaning up one's own temporary files.
func (w *watch) tempCleanup(roots *SimpleCommand, expr []string) bool {
	for _, r := range roots.Argv[1:] {
		if n := w.norm(r); n != "/tmp" && n != "/var/tmp" {
			return false
		}
	}
	for k := 0; k+1 < len(expr); k++ {
		switch expr[k] {
		case "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-newer", "-user", "-uid":
			return true // find /tmp -mtime +7 -delete: one's old temporary files
		case "-name", "-iname", "-path", "-ipath", "-regex", "-iregex", "-wholename":
			if p := strings.Trim(expr[k+1], "*."); p != "" && p != "/" {
				return true
			}
		}
	}
	return false
}

var runsLine = lazyRegexp(`\b(?:system|exec|eval|qx)\b|` + "`")

// evalsStdin reports a one-liner that evaluates what it reads on stdin: exec(input()),
// eval(sys.stdin.read()), eval STDIN.read, eval(stream_get_contents(STDIN)).
func evalsStdin(args []string) bool {
	for _, a := range args {
		if (strings.Contains(a, "exec") || strings.Contains(a, "eval")) &&
			(strings.Contains(a, "stdin") || strings.Contains(a, "STDIN") || strings.Contains(a, "input()") || strings.Contains(a, "readFileSync(0") || strings.Contains(a, "<STDIN>")) {
			return true
		}
		// perl -ne 'system $_', ruby -ne 'system $_': each line read runs.
		if strings.Contains(a, "$_") && runsLine().MatchString(a) {
			return true
		}
	}
	return false
}

var (
	// A one-liner's network fetch: urlopen, requests.get, open-uri, LWP, fetch(),
	// file_get_contents of a URL, PowerShell's Invoke-WebRequest and DownloadString.
	fetchCall = lazyRegexp(`urlopen|urlretrieve|requests\.get|httpx\.get|http\.client|open-uri|URI\.open|Net::HTTP|LWP|HTTP::Tiny|\bget\s*\(?\s*["']https?:|\bfetch\(|https?\.get\(|file_get_contents\(\s*["']https?:|curl_exec|Invoke-WebRequest|Invoke-RestMethod|\biwr\b|\birm\b|DownloadString|WebClient`)
	// Code run from a value: exec(), eval, new Function, instance_eval, vm's run
	// functions, PowerShell's Invoke-Expression.
	evalCall = lazyRegexp(`\bexec\s*\(|\beval\b|\bFunction\s*\(|instance_eval|class_eval|runInThisContext|runInNewContext|Invoke-Expression|\biex\b|\bcompile\s*\(`)
)

// evalsDownload reports a one-liner that fetches code and evaluates it, and names
// the fetch: exec(urlopen(URL).read()), eval(URI.open(URL).read), iex (irm URL).
func evalsDownload(args []string) (string, bool) {
	all := strings.Join(args, " ") // perl -MLWP::Simple -e 'eval get "https://x"'
	if !evalCall().MatchString(all) {
		return "", false // the rarer half first
	}
	if f := fetchCall().FindString(all); f != "" {
		return f, true
	}
	return "", false
}

// ownProgram reports an interpreter given its program on the command line (-c, -e,
// -m, -r, --eval, or a script file), so what it reads on stdin is data; sh -s, and a
// script named -, /dev/stdin or /dev/fd/0, read the program from stdin after all.
func ownProgram(name string, args []string) bool {
	switch name {
	case "source", ".", "eval":
		return false
	}
	for k, a := range args {
		switch {
		case a == "-s" || a == "--":
			if a == "-s" {
				return false
			}
			continue
		case a == "-c" || a == "-e" || a == "-E" || a == "-m" || a == "-r" || a == "-p" || a == "--eval" || a == "--print" || a == "-ne" || a == "-pe" || a == "-lne" || a == "-Command" || a == "-command":
			return k+1 < len(args) && args[k+1] != "-" // pwsh -c -: the command is read from stdin
		case slices.Contains([]string{"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"}, a):
			return false // python3 - ARGS: the program is what it reads
		case strings.HasPrefix(a, "-"):
			continue
		case strings.Contains(a, "://"):
			return false // deno run https://...: the program comes from the network
		case k == 0 && (a == "run" || a == "eval" || a == "x" || a == "exec" || a == "fsi") && (name == "deno" || name == "bun" || name == "uv" || name == "dotnet"):
			continue // deno run -: the subcommand, then what it runs
		default:
			return true // a script file
		}
	}
	return false
}

// awkRunsInput reports an awk whose program hands what it reads to a shell
// (curl ... | awk '{system($0)}', awk '{print | "sh"}').
func awkRunsInput(name string, args []string) bool {
	if !strings.HasSuffix(name, "awk") {
		return false
	}
	for k, a := range args {
		if strings.Contains(a, "system(") || strings.Contains(a, `| "sh"`) || strings.Contains(a, `| "bash"`) || strings.Contains(a, "|\"sh\"") {
			return true
		}
		if (a == "-f" || a == "--file") && k+1 < len(args) && slices.Contains([]string{"-", "/dev/stdin", "/dev/fd/0"}, args[k+1]) {
			return true // awk -f -: the program is what it reads
		}
	}
	return false
}

func (w *watch) interpreter(name string) bool {
	if v, ok := w.interp[name]; ok {
		return v
	}
	if w.interpreters == nil {
		w.interpreters = newPatternSet(w.cfg.Interpreters)
	}
	is := w.interpreters.match(name)
	if w.interp == nil {
		w.interp = map[string]bool{}
	}
	w.interp[name] = is
	return is
}

func (w *watch) downloader(name string) bool { return slices.Contains(w.cfg.Downloaders, name) }

// findRemoves reports whether the find command at i runs, through -exec (directly, or
// through the wrappers and shells it starts), a command that destroys what it is
// given.
func findRemoves(an *Analysis, i int) bool {
	if i+1 >= len(an.Commands) || !strings.HasPrefix(an.Commands[i+1].Context, "wrapper:f") {
		return false
	}
	for j := i + 1; j < len(an.Commands) && strings.HasPrefix(an.Commands[j].Context, "wrapper:"); j++ {
		if n := an.Commands[j]; len(n.Argv) > 0 && destroys(base(n.Argv[0]), n.Argv[1:]) {
			return true
		}
	}
	return false
}

// destroys reports a command that deletes, empties, moves away or changes the
// permissions of the files it is given: rm, shred, truncate, chmod, mv, sed -i, cp
// /dev/null FILE, dd of=FILE, tar --remove-files.
func destroys(name string, args []string) bool {
	switch name {
	case "rm", "unlink", "shred", "srm", "wipe", "truncate", "chmod", "chown", "chgrp", "setfacl", "chattr", "mv", "trash-put":
		return true
	case "sed", "perl", "ruby":
		return hasFlag(args, "i", "in-place") || slices.ContainsFunc(args, func(a string) bool {
			return strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "i")
		})
	case "cp", "install":
		return slices.Contains(args, "/dev/null") || slices.Contains(args, "/dev/zero")
	case "dd":
		return slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "of=") })
	case "tar", "bsdtar", "zip", "rsync", "7z":
		return slices.Contains(args, "--remove-files") || slices.Contains(args, "--remove-source-files") || name == "zip" && hasFlag(args, "m", "move") || slices.Contains(args, "-sdel")
	}
	return false
}

// listedRoots are the folders a lister in c's pipeline walks before it, and the rest
// of the lister's arguments (find ~ | xargs
// rm, rg --files ~ | xargs rm, find / | while read f; do rm "$f"; done): the command a
// destroyer fed from it acts on every file under.
func listedRoots(an *Analysis, i int, c *SimpleCommand) (roots *SimpleCommand, expr []string) {
	if c.Pipeline == 0 {
		return nil, nil
	}
	for j := 0; j < i; j++ {
		d := &an.Commands[j]
		if d.Pipeline != c.Pipeline || len(d.Argv) == 0 {
			continue
		}
		var idx []int
		switch base(d.Argv[0]) {
		case "find", "gfind":
			for k := 1; k < len(d.Argv); k++ {
				if a := d.Argv[k]; strings.HasPrefix(a, "-") || a == "(" || a == "!" {
					if k == 1 && (a == "-H" || a == "-L" || a == "-P") {
						continue
					}
					break
				}
				idx = append(idx, k)
			}
		case "fd", "fdfind", "rg", "ls", "tree", "du":
			// fd PATTERN PATH..., rg --files PATH..., ls -R PATH.
			ops := 0
			for k := 1; k < len(d.Argv); k++ {
				if strings.HasPrefix(d.Argv[k], "-") {
					continue
				}
				ops++
				if ops > 1 || base(d.Argv[0]) != "fd" && base(d.Argv[0]) != "fdfind" && !(base(d.Argv[0]) == "rg" && !slices.Contains(d.Argv, "--files")) {
					idx = append(idx, k)
				}
			}
		default:
			continue
		}
		if len(idx) > 0 {
			return operandsAt(d, idx), d.Argv[idx[len(idx)-1]+1:]
		}
	}
	return nil, nil
}

// protectedTree returns the first operand (from index from of Argv) that names a
// protected tree. A word computed at run time counts when its literal prefix alone
// is / or ~ (rm -rf /$X with X empty is rm -rf /).
func (w *watch) protectedTree(c *SimpleCommand, from int, linksAreFiles bool) (string, bool) {
	dashdash := false
	for k := from; k < len(c.Argv); k++ {
		a := c.Argv[k]
		if !dashdash && a == "--" {
			dashdash = true
			continue
		}
		if !dashdash && strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		partial := c.Partial != nil && c.Partial[k]
		n := w.norm(a)
		// Judge the path as written too: /bin may be a link to /usr/bin, and is
		// still /bin.
		if lex := w.lexical(a); lex != n && !partial && slices.Contains(w.cfg.ProtectedTrees, lex) {
			return a, true
		}
		if partial {
			if n == "/" || n == "~" {
				return a + "...", true
			}
			continue
		}
		for _, p := range w.cfg.ProtectedTrees {
			// A system entry with a * covers what it matches (/usr/* is /usr/bin and
			// /usr/lib; ~/* stays the literal operand); an operand that is itself a glob
			// is refused when it would match an entry (rm -rf /e* reaches /etc).
			if n == p || strings.HasPrefix(p, "/") && strings.ContainsAny(p, "*?[") && match(p, n) || strings.ContainsAny(n, "*?[") && match(n, p) {
				return a, true
			}
		}
		if strings.ContainsAny(a, "*?[") {
			for _, m := range w.globAbs(a) {
				if linksAreFiles && w.linkOnly(m) {
					continue // rm -rf * removes a link among the matches, not its target
				}
				mn := w.norm(m)
				if slices.Contains(w.cfg.ProtectedTrees, mn) || mn == "~" || mn == "/" || w.ancestorOfHome(mn) {
					return a + " (" + m + ")", true
				}
			}
		}
		if strings.HasPrefix(n, "~") && !strings.Contains(n, "/") {
			return a, true // ~user: someone's home
		}
		if strings.ContainsAny(path.Base(a), "*?[") {
			// A glob over the entries of a folder whose every entry is protected
			// (rm -rf ~/.[!.]*, rm -rf /usr/l*) reaches them whatever it matches today.
			dir := w.norm(path.Dir(a))
			if dir == "/" || dir == "~" || slices.Contains(w.cfg.ProtectedTrees, dir+"/*") || slices.Contains(w.cfg.ProtectedTrees, dir+"/.*") {
				return a, true
			}
		}
		if w.ancestorOfHome(n) {
			return a + " (a folder that holds the home folder)", true
		}
		if c.DirUnknown && !path.IsAbs(a) && !strings.HasPrefix(a, "~") {
			return a + " (relative to a folder the line's cd made unknown)", true
		}
	}
	return "", false
}

// ancestorOfHome reports a path that holds the home folder (/data/users when home is
// /data/users/bob): removing or moving it takes home with it.
func (w *watch) ancestorOfHome(n string) bool {
	home := strings.TrimSuffix(w.home, "/")
	if home == "" || !path.IsAbs(n) {
		return false
	}
	real := w.realPath(home)
	for _, h := range []string{home, real} {
		if n == "/" || strings.HasPrefix(h, strings.TrimSuffix(n, "/")+"/") {
			return true
		}
	}
	return false
}

// holdsProtected reports a path that is a protected file or a folder holding one
// (~/.ssh holds ~/.ssh/authorized_keys): removing, moving or changing it recursively
// reaches the file.
func (w *watch) holdsProtected(p string) bool {
	if p == "" || strings.HasPrefix(p, "-") {
		return false
	}
	// The folder's own spellings are worked out once: "/x" stands for what it holds.
	return w.protectedForms(w.forms(p, "")) || w.protectedForms(w.forms(strings.TrimSuffix(p, "/"), "/x")) || w.containsProtected(p)
}

// withoutLinks is c without the operands that name a symbolic link with no trailing
// slash: rm -r removes such a link, not the tree it points to (rm -rf etc-link is
// harmless; rm -rf etc-link/ is not).
func (w *watch) withoutLinks(c *SimpleCommand) *SimpleCommand {
	out := *c
	out.Argv, out.Partial = nil, nil
	for k, a := range c.Argv {
		partial := c.Partial != nil && c.Partial[k]
		if k > 0 && !partial && !strings.HasPrefix(a, "-") && !strings.ContainsAny(a, "*?[") && w.linkOnly(a) {
			continue
		}
		out.Argv = append(out.Argv, a)
		if c.Partial != nil {
			out.Partial = append(out.Partial, partial)
		}
	}
	return &out
}

// linkOnly reports whether rm -r given p removes a link and nothing more: p names a
// symbolic link, without a trailing slash, that is not itself a protected path (/bin,
// a link to /usr/bin on merged-/usr systems, is the system all the same).
func (w *watch) linkOnly(p string) bool {
	if strings.HasSuffix(p, "/") || !w.isLink(p) {
		return false
	}
	lex := w.lexical(p)
	for _, t := range w.cfg.ProtectedTrees {
		if lex == t || strings.HasPrefix(t, "/") && strings.ContainsAny(t, "*?[") && match(t, lex) {
			return false
		}
	}
	return true
}

// isLink reports whether p (relative to the command's folder) is a symbolic link.
func (w *watch) isLink(p string) bool {
	home := strings.TrimSuffix(w.home, "/")
	if home != "" && strings.HasPrefix(p, "~/") {
		p = home + p[1:]
	}
	if !path.IsAbs(p) {
		if w.dir == "" {
			return false
		}
		p = w.dir + "/" + p
	}
	if _, ok := w.links[path.Clean(p)]; ok {
		return true // made by ln -s earlier on the line
	}
	dir := w.realPath(path.Dir(path.Clean(p)))
	fi, err := os.Lstat(path.Join(dir, path.Base(path.Clean(p))))
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// treeIs reports whether an operand is exactly the tree t (chmod 777 / without -R).
func (w *watch) treeIs(c *SimpleCommand, t string) bool {
	for _, a := range c.Argv[1:] {
		if !strings.HasPrefix(a, "-") && w.norm(a) == t {
			return true
		}
	}
	return false
}

func (w *watch) protectedFile(t string) bool {
	if t == "" {
		return false
	}
	return w.protectedForms(w.forms(t, "")) || w.shadows(t)
}

// pathDirs are the folders on a usual PATH that come before the system's own: a
// program put there under a system command's name (git, sudo, ls) runs instead of it.
var pathDirs = []string{"~/.local/bin", "~/bin", "~/.bin", "~/.cargo/bin", "~/go/bin", "/usr/local/bin", "/usr/local/sbin"}

// shadows reports a file in one of pathDirs named like a program of the system's own
// folders, which it would replace for everyone who runs that name.
func (w *watch) shadows(t string) bool {
	n := w.norm(t)
	if !slices.Contains(pathDirs, path.Dir(n)) {
		return false
	}
	name := path.Base(n)
	for _, d := range []string{"/usr/bin", "/bin", "/usr/sbin", "/sbin"} {
		if _, err := os.Lstat(d + "/" + name); err == nil {
			return true
		}
	}
	return slices.Contains([]string{"sudo", "su", "git", "ssh", "bash", "sh", "ls", "cd", "python", "python3", "node", "npm", "env"}, name)
}

// prefixOfProtected reports a path that a protected file's name begins with
// (~/.bashr for ~/.bashrc): a tool that appends a suffix to it can write that file.
func (w *watch) prefixOfProtected(p string) bool {
	n := w.norm(p)
	if n == "" || strings.HasSuffix(n, "/") {
		return false
	}
	for _, pat := range w.cfg.ProtectedFiles {
		if strings.HasPrefix(pat, n) && !strings.Contains(pat[len(n):], "/") {
			return true
		}
	}
	return false
}

// containsProtected reports a folder below which a protected file lies
// (~/.config/systemd holds ~/.config/systemd/user/*).
func (w *watch) containsProtected(p string) bool {
	n := strings.TrimSuffix(w.norm(p), "/")
	if n == "" {
		return false
	}
	if w.folders == nil {
		// The folders above the protected files' patterns (~/.config/systemd/user/*
		// gives ~/.config/systemd and ~/.config), once per line.
		w.folders = map[string]bool{}
		for _, pat := range w.cfg.ProtectedFiles {
			for d := path.Dir(pat); d != "." && d != "/" && d != "~" && d != ""; d = path.Dir(d) {
				if !strings.ContainsAny(d, "*?[") {
					w.folders[d] = true
				}
			}
		}
	}
	return w.folders[n]
}

// forms are the spellings of a path the lists are matched against: as the file system
// resolves it, and as the line names it; suffix is added to both (a folder's "/x").
func (w *watch) forms(t, suffix string) []string {
	n := w.norm(t)
	forms := []string{n + suffix}
	if lex := w.lexical(t); lex != n {
		forms = append(forms, lex+suffix)
	}
	return forms
}

// protectedForms reports whether one of the forms is a protected file.
func (w *watch) protectedForms(forms []string) bool {
	for _, n := range forms {
		if lvmDevice(n) {
			return true
		}
		if n == "~/.ssh/known_hosts" {
			return false // ssh-keyscan host >> ~/.ssh/known_hosts: trusting a host, routine
		}
		if w.files == nil {
			w.files = newPatternSet(w.cfg.ProtectedFiles)
		}
		if w.files.match(n) {
			return true
		}
		if strings.ContainsAny(n, "*?[") {
			for _, p := range w.cfg.ProtectedFiles {
				// A glob operand counts when it could name a protected file
				// (~/.bash?c reaches ~/.bashrc wherever home is).
				if match(n, p) {
					return true
				}
			}
		}
	}
	return false
}

// lvmDevice reports a device two levels below /dev (LVM's /dev/VG/LV, /dev/cciss/c0d0,
// /dev/zvol/pool/vol), leaving out the folders of pseudo-devices a command may write
// (/dev/fd/1, /dev/pts/0, /dev/shm/x).
func lvmDevice(n string) bool {
	rest, ok := strings.CutPrefix(n, "/dev/")
	if !ok {
		return false
	}
	dir, file, ok := strings.Cut(rest, "/")
	if !ok || file == "" {
		return false
	}
	switch dir {
	case "fd", "pts", "shm", "tcp", "udp", "mqueue", "hugepages", "net", "stdin", "stdout", "stderr", "null":
		return false
	}
	return true
}

// lexical is a path with home written ~ and the working directory joined, cleaned
// without asking the file system: the path as the line names it.
func (w *watch) lexical(p string) string {
	n := w.abs(p)
	if home := strings.TrimSuffix(w.home, "/"); home != "" && (n == home || strings.HasPrefix(n, home+"/")) {
		n = "~" + n[len(home):]
	}
	return path.Clean(n)
}

// match is path.Match with a fast refusal: most protected patterns share no literal
// prefix with the path at hand, and a line can hold hundreds of paths.
func match(pattern, name string) bool {
	if strings.Contains(pattern, "**") {
		for _, v := range GlobstarVariants(pattern) {
			if v != pattern && match(v, name) {
				return true
			}
		}
	}
	i := strings.IndexAny(pattern, "*?[\\")
	if i < 0 {
		return pattern == name
	}
	if !strings.HasPrefix(name, pattern[:i]) {
		return false
	}
	ok, _ := path.Match(bashPattern(pattern), name)
	return ok
}

// norm makes a path absolute the way bash and the kernel would see it (~ is home,
// a relative path is under the command's directory, .. and symlinks are resolved
// against the file system, never just cleaned away) and writes the home directory
// as ~, so it reads like the watchdog's lists.
func (w *watch) norm(p string) string {
	if p == "" {
		return ""
	}
	home := strings.TrimSuffix(w.home, "/")
	if home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
		p = home + p[1:]
	}
	if strings.HasPrefix(p, "~") && p != "~" && !strings.HasPrefix(p, "~/") {
		// ~user: that user's home, as bash expands it (~root/.bashrc is /root/.bashrc).
		name, rest, _ := strings.Cut(p[1:], "/")
		if u, err := user.Lookup(name); err == nil && u.HomeDir != "" {
			p = strings.TrimSuffix(u.HomeDir, "/") + "/" + rest
		}
	}
	if home == "" && (p == "~" || strings.HasPrefix(p, "~/")) {
		// Home is not known: a path that climbs out of it could reach anything.
		c := path.Clean("/~home" + p[1:])
		if c != "/~home" && !strings.HasPrefix(c, "/~home/") {
			return "/"
		}
		return "~" + strings.TrimPrefix(c, "/~home")
	}
	if !path.IsAbs(p) && w.dir != "" && !strings.HasPrefix(p, "~") {
		p = w.dir + "/" + p
	}
	if m := procRoot().FindStringSubmatch(p); m != nil {
		// /proc/PID/root is that process's /, /proc/self/cwd the command's folder, and
		// another process's cwd could be anything: judged as /.
		switch {
		case m[2] == "root" || m[1] != "self" && m[1] != "$$" || w.dir == "":
			p = "/" + m[3]
		default:
			p = w.dir + "/" + m[3]
		}
	}
	if path.IsAbs(p) {
		p = w.realPath(p)
	}
	if home != "" && (p == home || strings.HasPrefix(p, home+"/")) {
		p = "~" + p[len(home):]
	}
	return path.Clean(p)
}

// curlOutputVar matches curl's -w %output{FILE} (and %output{>>FILE}).
var curlOutputVar = lazyRegexp(`%output\{(?:>>)?([^}]+)\}`)

// procRoot matches /proc/PID/root and /proc/PID/cwd, and what follows them.
var procRoot = lazyRegexp(`^/proc/(self|thread-self|\$\$|\$!|\d+(?:/task/\d+)?)/+(root|cwd)(?:/+(.*))?$`)

// ProcDir reads a path through /proc/PID/root or /proc/PID/cwd: the process (self,
// thread-self, $$ and $! for the line's shell and its last job, or a number), which
// of the two, and the rest of the path; ok is false for any other path.
func ProcDir(p string) (pid, dir, rest string, ok bool) {
	if !strings.HasPrefix(p, "/proc/") {
		return "", "", "", false // every path a file applet checks comes here: no regexp to compile
	}
	m := procRoot().FindStringSubmatch(p)
	if m == nil {
		return "", "", "", false
	}
	return m[1], m[2], m[3], true
}

// realPath resolves .. and symlinks against the file system for the longest part of
// p that exists, then cleans the rest (~/../usr is /usr, whatever ~ links to).
func (w *watch) realPath(p string) string {
	if p = strings.TrimRight(p, "/"); p == "" {
		return "/"
	}
	if r, ok := w.real[p]; ok {
		return r
	}
	if w.real == nil {
		w.real = map[string]string{}
	}
	r := realPath(p, w.real)
	w.real[p] = r
	return r
}

func realPath(p string, seen map[string]string) string {
	rest := ""
	for cur := p; ; {
		r, ok := seen["="+cur]
		if !ok {
			if resolved, err := filepath.EvalSymlinks(cur); err == nil {
				r = resolved
			}
			seen["="+cur] = r // "" records that cur does not exist
		}
		if r != "" {
			return path.Join(r, rest)
		}
		parent := path.Dir(cur)
		if parent == cur || path.Base(cur) == ".." {
			return path.Clean(p)
		}
		rest = path.Join(path.Base(cur), rest)
		cur = parent
	}
}

// globAbs matches a pattern operand against the file system.
func (w *watch) globAbs(pattern string) []string {
	p := pattern
	if home := strings.TrimSuffix(w.home, "/"); home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
		p = home + p[1:]
	}
	if !path.IsAbs(p) {
		if w.dir == "" {
			return nil
		}
		p = w.dir + "/" + p
	}
	// A trailing slash matches folders only (rm -rf ../h*/): the same folders.
	pat := bashPattern(strings.TrimRight(p, "/"))
	if w.nocase {
		pat = NoCase(pat)
	}
	return globVariants(pat)
}

// globVariants matches pattern and its GlobstarVariants against the file system.
func globVariants(pattern string) []string {
	var out []string
	for _, v := range GlobstarVariants(pattern) {
		m, _ := filepath.Glob(v)
		for _, f := range m {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// GlobstarVariants is pattern with each ** component standing for none to three
// folders, as it does under bash's globstar (red team: shopt -s globstar; echo >>
// ~/**/.bashrc wrote ~/.bashrc). It is read so whether or not the line turns globstar
// on: without it ** is *, one of the variants.
func GlobstarVariants(pattern string) []string {
	if !strings.Contains(pattern, "**") {
		return []string{pattern}
	}
	variants := [][]string{nil}
	for _, part := range strings.Split(pattern, "/") {
		var next [][]string
		for _, v := range variants {
			if part != "**" {
				next = append(next, append(slices.Clip(v), part))
				continue
			}
			for depth := range 4 {
				if len(next) < 64 {
					next = append(next, append(slices.Clip(v), slices.Repeat([]string{"*"}, depth)...))
				}
			}
		}
		variants = next
	}
	out := make([]string, 0, len(variants))
	for _, v := range variants {
		out = append(out, strings.Join(v, "/"))
	}
	return out
}

func isWrite(op string) bool {
	switch op {
	case ">", ">>", "&>", "&>>", ">|", "<>":
		return true
	}
	return false
}

// hasFlag reports a short flag (in any cluster: -rf, -fR) or a long one.
func hasFlag(args []string, short, long string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--"+long || len(a) >= 3 && !strings.Contains(a, "=") && strings.HasPrefix("--"+long, a) {
			return true // getopt takes any unambiguous prefix: rm --recur is rm --recursive
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a[1:], short) {
			return true
		}
	}
	return false
}

// WriteTargets lists the files a simple command writes by its operands rather than by
// a redirection: tee and truncate operands, the destination of cp, mv, install, ln,
// rsync and scp, the files of sed -i and perl -i, dd's of=, and the config file that
// `git config NAME VALUE` changes (.git/config, or ~/.gitconfig with --global). The
// policy decides each as an fs.write of that path, like a redirection's target.
func WriteTargets(argv []string) []string {
	if len(argv) == 0 {
		return nil
	}
	name, args := path.Base(argv[0]), argv[1:]
	switch name {
	case "dd":
		var out []string
		for _, a := range args {
			if of, ok := strings.CutPrefix(a, "of="); ok {
				out = append(out, of)
			}
		}
		return out
	case "git":
		args = gitExpandAlias(args)
		return append(append(gitConfigWrites(args), gitRepoWrites(args)...), gitOutputs(args)...)
	case "pre-commit", "husky", "lefthook", "overcommit", "git-lfs":
		// Hook installers write .git/hooks (husky: core.hooksPath in .git/config).
		if slices.ContainsFunc(args, func(a string) bool { return a == "install" || a == "init" || a == "--install" }) {
			return []string{".git/hooks/pre-commit", ".git/config"}
		}
	}
	out := writeTargets(name, args)
	switch name {
	case "rm", "rmdir", "unlink", "shred", "mv":
		// Deleting or moving a file is writing it: rm .agentbox/config.json, mv
		// .git/config x. (Making a folder plants nothing: mkdir -p ~/.ssh is routine.)
		out = append(out, operandsOf(args)...)
	case "ln":
		if ops := operandsOf(args); len(ops) >= 2 {
			out = appendNew(out, ops[len(ops)-1]) // the link made
		}
		out = appendNew(out, linkedFiles(args)...)
	case "cp":
		if slices.ContainsFunc(args, func(a string) bool {
			return a == "--symbolic-link" || a == "--link" || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a, "sl")
		}) {
			out = appendNew(out, linkedFiles(args)...) // cp -s, cp -l: links, not copies
		}
	}
	// Folders a command unpacks into: tar -C DIR, unzip -d DIR (a file there stands for
	// what lands in it).
	if dir := extractInto(name, args); dir != "" {
		out = append(out, strings.TrimSuffix(dir, "/")+"/pre-commit")
	}
	// A name the server chooses (curl -OJ: DIR/?*) is the watchdog's to judge against
	// the protected files; as a path for the rules it would match every entry there.
	out = slices.DeleteFunc(out, func(t string) bool { return strings.HasSuffix(t, "/?*") })
	return out
}

// backupSuffix reports whether cp, mv, install or ln keep a backup of what they
// replace (-b, --backup, or a suffix given), and its suffix (~ by default; numbered
// backups are NAME.~N~, taken as the default).
func backupSuffix(args []string) (bool, string) {
	backup, suffix := false, "~"
	for k, a := range args {
		switch {
		case a == "--":
			return backup, suffix
		case a == "--backup" || strings.HasPrefix(a, "--backup="):
			backup = true
		case (a == "-S" || a == "--suffix") && k+1 < len(args):
			backup, suffix = true, args[k+1]
		case strings.HasPrefix(a, "--suffix="):
			backup, suffix = true, strings.TrimPrefix(a, "--suffix=")
		case len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.Contains(a, "b"):
			backup = true
		}
	}
	return backup, suffix
}

// compressors replace each file they are given by its compressed or decompressed form
// (gzip f writes f.gz and removes f; gunzip f.gz writes f), and with -r every file
// below a folder (red team: gzip -r . turned .git/config into config.gz, gunzip -f
// ~/.bashrc.gz wrote ~/.bashrc).
var compressors = map[string]string{"gzip": ".gz", "pigz": ".gz", "bzip2": ".bz2", "pbzip2": ".bz2", "xz": ".xz",
	"pixz": ".xz", "lzma": ".lzma", "zstd": ".zst", "pzstd": ".zst", "lz4": ".lz4", "lzip": ".lz", "plzip": ".lz",
	"lzop": ".lzo", "brotli": ".br", "compress": ".Z", "gunzip": "", "unpigz": "", "bunzip2": "", "unxz": "",
	"unlzma": "", "unzstd": "", "unlz4": "", "uncompress": ""}

// compressorWrites are the files a compressor writes or removes, and the folders it
// rewrites file by file (-r); nothing when it writes to standard output or only tests.
func compressorWrites(name string, args []string) (files, trees []string) {
	suffix, ok := compressors[name]
	if !ok || hasFlag(args, "ctl", "stdout") || hasFlag(args, "", "to-stdout") || hasFlag(args, "", "test") || hasFlag(args, "", "list") {
		return nil, nil
	}
	decompress := suffix == "" || hasFlag(args, "d", "decompress") || hasFlag(args, "", "uncompress")
	if decompress && hasFlag(args, "N", "name") {
		// gunzip -N restores the name the archive holds, in the file's folder (red
		// team: .bashrc in the home folder).
		for _, f := range operandsOf(args) {
			trees = append(trees, path.Dir(f))
		}
		return files, trees
	}
	for k, a := range args {
		if v, ok := strings.CutPrefix(a, "--suffix="); ok {
			suffix = v
		} else if (a == "-S" || a == "--suffix") && k+1 < len(args) {
			suffix = args[k+1]
		} else if (a == "-o" || a == "--output") && k+1 < len(args) {
			files = append(files, args[k+1]) // zstd -o F, lz4 -o
		}
	}
	ops := operandsOf(args)
	if hasFlag(args, "r", "recursive") {
		return files, ops
	}
	if (name == "lz4" || name == "unlz4") && len(ops) == 2 {
		return append(files, ops[1]), nil // lz4 IN OUT
	}
	for _, f := range ops {
		files = append(files, f) // removed, unless kept: the same file either way
		switch {
		case !decompress:
			files = append(files, f+suffix)
		case suffix != "" && strings.HasSuffix(f, suffix):
			files = append(files, strings.TrimSuffix(f, suffix))
		default:
			for _, s := range []string{".gz", ".tgz", ".bz2", ".tbz2", ".xz", ".txz", ".lzma", ".zst", ".lz4", ".lz", ".lzo", ".br", ".Z", ".z"} {
				if strings.HasSuffix(f, s) {
					files = append(files, strings.TrimSuffix(f, s))
					break
				}
			}
		}
	}
	return files, nil
}

// gitConfigWrites is the file `git [global options] config ...` writes, if it writes.
func gitConfigWrites(args []string) []string {
	dir := ""
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
		switch args[i] {
		case "-C":
			if i+1 < len(args) {
				dir = args[i+1]
			}
			i++
		case "-c", "--git-dir", "--work-tree", "--namespace", "--config-env":
			i++
		}
	}
	if i >= len(args) || args[i] != "config" {
		return nil
	}
	file, operands, writes, named := ".git/config", 0, false, false
	rest := args[i+1:]
	for k := 0; k < len(rest); k++ {
		a := rest[k]
		long, val, hasVal := strings.Cut(a, "=")
		switch {
		case a == "--global":
			file = "~/.gitconfig"
		case a == "--system":
			file = "/etc/gitconfig"
		case a == "-f" || len(long) >= len("--fil") && strings.HasPrefix("--file", long) && !hasVal:
			if k+1 < len(rest) {
				file, named = rest[k+1], true
				k++
			}
		case len(long) >= len("--fil") && strings.HasPrefix("--file", long):
			file, named = val, true // --file=F, and git's abbreviation --fil=F
		case strings.HasPrefix(a, "-f") && len(a) > 2:
			file, named = a[2:], true // -fF
		case a == "--add" || a == "--replace-all" || a == "--unset" || a == "--unset-all" || a == "-e" || a == "--edit" ||
			a == "--rename-section" || a == "--remove-section" || a == "set" || a == "unset" || a == "edit" ||
			a == "rename-section" || a == "remove-section":
			writes = true
		case strings.HasPrefix(a, "-"):
		default:
			operands++
		}
	}
	if !writes && operands < 2 {
		return nil
	}
	if key := gitConfigKey(rest); harmlessGitKey(key) && !named {
		// git config user.email ...: a key no command can hide in, in a file of git's
		// own; a file named by -f may be any file (a shell's start-up file git creates).
		return nil
	}
	if dir != "" && !strings.HasPrefix(file, "/") && !strings.HasPrefix(file, "~") {
		file = path.Join(dir, file)
	}
	return []string{file}
}

// writeTargets lists the files a command writes by its operands.
func writeTargets(name string, args []string) []string {
	if name == "less" {
		// less -o/-O FILE and --log-file copy what it shows into FILE (red team:
		// script -c "... | less -O ~/.bashrc").
		var out []string
		for k, a := range args {
			switch {
			case (a == "-o" || a == "-O") && k+1 < len(args):
				out = append(out, args[k+1])
			case (strings.HasPrefix(a, "-o") || strings.HasPrefix(a, "-O")) && len(a) > 2:
				out = append(out, a[2:])
			case strings.HasPrefix(a, "--log-file=") || strings.HasPrefix(a, "--LOG-FILE="):
				out = append(out, a[len("--log-file="):])
			}
		}
		return out
	}
	if strings.HasPrefix(name, "python") && len(args) >= 2 && args[0] == "-m" && (args[1] == "gzip" || args[1] == "bz2" || args[1] == "lzma") {
		name, args = "gzip", args[2:] // python3 -m gzip -d F.gz writes F, as gzip -d does
	}
	if files, _ := compressorWrites(name, args); len(files) > 0 {
		if strings.HasPrefix(name, "zstd") || name == "unzstd" {
			files = append(files, fileOutputs(name, args)...) // its output folders
		}
		return files
	}
	var out []string
	operands := func() []string { return operandsOf(args) }
	switch name {
	case "tee", "truncate":
		out = operands()
	case "history":
		// history -w FILE, -a FILE: the history, which the line may have filled with
		// history -s, written to FILE (red team: .git/config rewritten).
		for i, a := range args {
			if (a == "-w" || a == "-a") && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				out = append(out, args[i+1])
			}
		}
	case "chown", "chgrp", "setfacl", "chattr", "setfattr":
		// Changing a file's owner or attributes writes it (chattr +i locks it, a new
		// owner takes it away). The first operand of chown and chgrp is the owner,
		// unless given by --reference. (chmod is left out: chmod 600 ~/.ssh/key, the
		// everyday tightening, must not count as writing a protected file.)
		ops := operands()
		if (name == "chown" || name == "chgrp") && len(ops) > 0 &&
			!slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--reference") }) {
			ops = ops[1:]
		}
		if name == "setfacl" || name == "chattr" {
			ops = slices.DeleteFunc(ops, func(o string) bool { return strings.HasPrefix(o, "+") || strings.HasPrefix(o, "=") })
		}
		out = ops
	case "curl", "wget", "sort", "openssl", "pv", "http", "xh":
		out = outputOption(name, args)
	case "uniq":
		if ops := operands(); len(ops) == 2 {
			out = ops[1:] // uniq IN OUT
		}
	case "split", "csplit":
		out = splitOutputs(name, args)
	case "xdg-mime", "xdg-settings":
		// xdg-mime default, xdg-settings set: the handler a person's desktop runs for
		// a type or a scheme (the thirteenth red team).
		if len(args) > 0 && (args[0] == "default" || args[0] == "set") {
			out = append(out, "~/.config/mimeapps.list")
		}
	case "xdg-desktop-menu", "xdg-autostart":
		if len(args) > 0 && args[0] == "install" || name == "xdg-autostart" {
			out = append(out, "~/.local/share/applications/x.desktop")
		}
	case "script", "tar", "bsdtar", "strace", "ltrace", "time", "gpg", "gpg2", "xxd", "iconv", "zstd", "pandoc",
		"yq", "dos2unix", "unix2dos", "aria2c", "docker", "podman":
		out = append(out, fileOutputs(name, args)...)
	case "git":
		out = gitOutputs(gitExpandAlias(args))
	case "go", "gcc", "cc", "g++", "c++", "clang", "clang++", "ld", "tcc", "rustc", "cargo", "ssh-keygen", "pip", "pip3",
		"npm", "pnpm", "yarn", "gh", "ssh-copy-id":
		out = append(toolConfigWrites(name, args), buildOutputs(name, args)...)
	case "mkfifo", "mknod":
		// A named pipe or device node is a file made: one put where a state or lock file
		// belongs hangs whoever opens it. mkfifo NAME...; mknod NAME TYPE [MAJOR MINOR].
		var names []string
		for k := 0; k < len(args); k++ {
			switch a := args[k]; {
			case a == "-m" || a == "--mode" || a == "--context":
				k++
			case strings.HasPrefix(a, "-") && a != "-" && len(names) == 0:
			default:
				names = append(names, a)
			}
		}
		if name == "mknod" && len(names) > 1 {
			names = names[:1]
		}
		out = append(out, names...)
	case "touch", "mkisofs", "genisoimage":
		if name == "touch" {
			out = operands()
		}
		for k, a := range args {
			if a == "-o" && k+1 < len(args) && name != "touch" {
				out = append(out, args[k+1])
			}
		}
	case "shuf":
		for k, a := range args {
			if (a == "-o" || a == "--output") && k+1 < len(args) {
				out = append(out, args[k+1])
			} else if v, ok := strings.CutPrefix(a, "--output="); ok {
				out = append(out, v)
			}
		}
	case "socat":
		// socat ADDRESS ADDRESS: a file or device address is written.
		for _, a := range operands() {
			a = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(a, "OPEN:"), "CREATE:"), "GOPEN:")
			if strings.HasPrefix(a, "/") {
				out = append(out, strings.SplitN(a, ",", 2)[0])
			}
		}
	case "find":
		for k, a := range args {
			if (a == "-fprint" || a == "-fprint0" || a == "-fprintf" || a == "-fls") && k+1 < len(args) {
				out = append(out, args[k+1])
			}
		}
	case "ddrescue", "qemu-img", "bmaptool":
		if ops := operands(); len(ops) >= 2 {
			out = ops[len(ops)-1:] // the destination comes last
		}
	case "cp", "mv", "install", "ln", "rsync", "scp":
		ops := operands()
		if len(ops) >= 2 {
			out = append(out, ops[len(ops)-1])
		}
		for k, a := range args {
			if v, ok := strings.CutPrefix(a, "--target-directory="); ok {
				out = append(out, v)
			} else if a == "-t" && k+1 < len(args) {
				out = append(out, args[k+1])
			}
		}
		if name == "rsync" {
			out = append(out, fileOutputs(name, args)...) // --log-file, --write-batch
		}
		if name == "cp" && slices.Contains(args, "--parents") && len(ops) >= 2 {
			// cp --parents a/b DIR writes DIR/a/b (red team: .git/config from another
			// repository into the workspace's).
			for _, src := range ops[:len(ops)-1] {
				out = append(out, strings.TrimSuffix(ops[len(ops)-1], "/")+"/"+strings.TrimPrefix(src, "/"))
			}
		}
		if backup, suffix := backupSuffix(args); backup {
			// A backup of what is replaced takes the name with a suffix: cp -b -S rc x
			// ~/.bash makes ~/.bashrc.
			for _, t := range slices.Clone(out) {
				out = append(out, strings.TrimSuffix(t, "/")+suffix)
			}
		}
	case "sed", "perl", "ruby":
		out = inPlaceTargets(name, args, operands())
	case "ed", "ex", "red", "sponge", "patch":
		// ed and ex write the file they edit; sponge and patch the file they are given.
		out = operands()
		if name == "patch" {
			out = patchOperands(args)[:min(1, len(patchOperands(args)))] // patch FILE [PATCHFILE]
			file := ""
			if len(out) > 0 {
				file = out[0]
			}
			for k := 0; k < len(args); k++ {
				a, v, ok := args[k], "", false
				if n, val, has := strings.Cut(a, "="); has && strings.HasPrefix(a, "--") {
					a, v, ok = n, val, true
				} else if k+1 < len(args) && len(a) >= 2 && a[0] == '-' {
					v, ok = args[k+1], true
				}
				if !ok {
					continue
				}
				// The output, the rejects (-r: the hunks' context lines are shell lines
				// in ~/.bashrc), and the backups -b makes: PREFIX+FILE, FILE+SUFFIX (the
				// thirteenth red team).
				switch a {
				case "-o", "--output", "-r", "--reject-file":
					out = append(out, v)
				case "-B", "--prefix":
					if file != "" {
						out = append(out, v+file)
					}
				case "-Y", "--basename-prefix":
					if file != "" {
						out = append(out, path.Join(path.Dir(file), v+path.Base(file)))
					}
				case "-z", "--suffix":
					if file != "" {
						out = append(out, file+v)
					}
				default:
					continue
				}
				if !strings.HasPrefix(args[k], "--") || !strings.Contains(args[k], "=") {
					k++
				}
			}
		}
	case "vi", "vim", "nvim", "vim.basic", "vim.tiny", "gvim":
		out = scriptedEditorFiles(args)
	case "awk", "gawk":
		out = gawkInplaceFiles(args, operands())
	}
	return out
}

// operandsOf are a command's arguments that are not options (all after --).
func operandsOf(args []string) []string {
	var ops []string
	dd := false
	for _, a := range args {
		if !dd && a == "--" {
			dd = true
			continue
		}
		if !dd && strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		ops = append(ops, a)
	}
	return ops
}

// ReadTargets are the files the shell itself reads for a command, which the policy
// decides like the target of a < redirection: source FILE and . FILE, history -r FILE.
func ReadTargets(argv []string) []string {
	if len(argv) < 2 {
		return nil
	}
	switch path.Base(argv[0]) {
	case "source", ".":
		return argv[1:2]
	case "history":
		for k, a := range argv[1:] {
			if (a == "-r" || a == "-n") && k+2 < len(argv) {
				return argv[k+2 : k+3]
			}
		}
	}
	return nil
}

// fileOutputs are the files more tools write by option or operand: script FILE, tar
// -c -f FILE, strace/time/gpg/iconv/zstd/pandoc -o FILE, xxd -r IN OUT, yq -i and
// dos2unix on their files, aria2c -d DIR -o NAME, docker cp SRC DEST.
func fileOutputs(name string, args []string) []string {
	var out []string
	value := func(k int, shorts string, longs ...string) (string, bool) {
		a := args[k]
		for _, l := range longs {
			if v, ok := strings.CutPrefix(a, l+"="); ok {
				return v, true
			}
			if a == l && k+1 < len(args) {
				return args[k+1], true
			}
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' {
			for j := 1; j < len(a); j++ {
				if strings.IndexByte(shorts, a[j]) >= 0 {
					if j+1 < len(a) {
						return a[j+1:], true
					}
					if k+1 < len(args) {
						return args[k+1], true
					}
				}
			}
		}
		return "", false
	}
	ops := operandsOf(args)
	switch name {
	case "script":
		for k := range args {
			if v, ok := value(k, "c", "--command"); ok {
				ops = slices.DeleteFunc(slices.Clone(ops), func(o string) bool { return o == v })
			}
		}
		if len(ops) > 0 {
			out = append(out, ops[0])
		}
	case "tar", "bsdtar":
		creates := len(args) > 0 && !strings.HasPrefix(args[0], "-") && strings.ContainsAny(args[0], "cru")
		for k := range args {
			// The verbose listing's file and the incremental snapshot (the thirteenth
			// red team: a listing of names like 'x;cmd' in ~/.bashrc).
			if v, ok := value(k, "g", "--index-file", "--listed-incremental", "--snapshot"); ok {
				out = append(out, v)
			}
		}
		for k, a := range args {
			creates = creates || a == "--create" || a == "--append" || a == "--update" ||
				len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a, "cru")
			if v, ok := value(k, "f", "--file"); ok && creates {
				out = append(out, v)
			}
		}
		if creates && len(args) > 1 && !strings.HasPrefix(args[0], "-") && strings.Contains(args[0], "f") {
			out = append(out, args[1]) // tar czf FILE ...
		}
		if slices.Contains(args, "--remove-files") {
			out = append(out, ops...) // the files it archives, then deletes (the archive among them, as written)
		}
	case "xxd":
		if slices.Contains(args, "-r") && len(ops) >= 2 {
			out = append(out, ops[1])
		}
	case "yq", "dos2unix", "unix2dos":
		inPlace := name != "yq" || slices.ContainsFunc(args, func(a string) bool { return a == "-i" || a == "--inplace" })
		if inPlace && len(ops) > 0 {
			if name == "yq" {
				ops = ops[1:] // the expression
			}
			out = append(out, ops...)
		}
	case "aria2c":
		dir, file := ".", ""
		for k := range args {
			if v, ok := value(k, "d", "--dir"); ok {
				dir = v
			}
			if v, ok := value(k, "o", "--out"); ok {
				file = v
			}
		}
		if file != "" {
			out = append(out, strings.TrimSuffix(dir, "/")+"/"+file)
		}
	case "docker", "podman":
		if len(ops) == 3 && ops[0] == "cp" && !strings.Contains(ops[2], ":") {
			out = append(out, ops[2])
		}
	case "zstd", "unzstd", "zstdmt":
		// --output-dir-flat DIR and --output-dir-mirror DIR: each file's output in DIR,
		// by its name or by its whole path (the fifteenth red team: ~/x + ../.bashrc).
		for k := range args {
			if v, ok := value(k, "", "--output-dir-flat", "--output-dir-mirror"); ok {
				for _, o := range ops {
					if strings.HasPrefix(args[k], "--output-dir-flat") {
						o = path.Base(o)
					}
					out = append(out, strings.TrimSuffix(strings.TrimSuffix(path.Join(v, o), ".zst"), ".zstd"))
				}
			}
		}
		for k := range args {
			if v, ok := value(k, "o", "--output"); ok {
				out = append(out, v)
			}
		}
	case "rsync":
		for k := range args {
			if v, ok := value(k, "", "--log-file", "--write-batch", "--only-write-batch"); ok {
				out = append(out, v)
			}
			// The folders it moves replaced files, partial and temporary files into
			// (the thirteenth red team: --backup-dir=~/.ssh put old/authorized_keys there).
			if v, ok := value(k, "T", "--backup-dir", "--partial-dir", "--temp-dir"); ok {
				out = append(out, strings.TrimSuffix(v, "/")+"/authorized_keys", strings.TrimSuffix(v, "/")+"/pre-commit")
			}
		}
	case "gpg", "gpg2":
		for k := range args {
			if v, ok := value(k, "o", "--output", "--log-file", "--logger-file", "--status-file", "--attribute-file"); ok {
				out = append(out, v)
			}
			if v, ok := value(k, "", "--homedir"); ok {
				out = append(out, strings.TrimSuffix(v, "/")+"/pubring.kbx") // it makes its keyrings there
			}
		}
	default: // -o FILE
		for k := range args {
			if v, ok := value(k, "o", "--output", "--output-file"); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

// gitConfigKey is the key a git config line names: its first operand after the
// options (and a set/unset verb), lowered; "" for --edit and the like.
func gitConfigKey(rest []string) string {
	for k := 0; k < len(rest); k++ {
		a := rest[k]
		switch {
		case a == "-e" || a == "--edit" || a == "edit" || strings.HasPrefix(a, "--rename-section") || strings.HasPrefix(a, "--remove-section"):
			return ""
		case a == "-f" || a == "--file" || a == "--blob" || a == "--type" || a == "--default" || a == "--comment":
			k++
		case strings.HasPrefix(a, "-"), a == "set" || a == "unset" || a == "get":
		default:
			return strings.ToLower(a)
		}
	}
	return ""
}

// harmlessGitKey reports the git config keys that name, format and behave (user.email,
// core.autocrlf, safe.directory, pull.rebase): nothing in them runs or loads code, so
// writing them is everyday set-up, not a protected write.
func harmlessGitKey(key string) bool {
	switch key {
	case "core.autocrlf", "core.eol", "core.filemode", "core.ignorecase", "core.quotepath", "core.safecrlf",
		"core.longpaths", "core.symlinks", "core.precomposeunicode", "core.whitespace", "core.abbrev",
		"init.defaultbranch", "pull.rebase", "pull.ff", "push.default", "push.autosetupremote", "fetch.prune",
		"merge.ff", "merge.conflictstyle", "rebase.autostash", "rebase.autosquash", "safe.directory", "gc.auto",
		"diff.renames", "diff.algorithm", "diff.colormoved", "branch.autosetupmerge", "branch.autosetuprebase",
		"rerere.enabled", "submodule.recurse", "commit.verbose", "commit.gpgsign", "tag.gpgsign", "tag.sort",
		"column.ui", "http.postbuffer", "core.compression", "pack.threads":
		return true
	}
	for _, p := range []string{"user.", "color.", "advice.", "log.", "status."} {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// gitExpandAlias is git's arguments with an alias given on the line (-c alias.c=config)
// replaced by what it stands for, so that git c core.hooksPath X is seen as git config.
func gitExpandAlias(args []string) []string {
	aliases := map[string]string{}
	for k := 0; k+1 < len(args); k++ {
		if args[k] == "-c" {
			if key, val, ok := strings.Cut(args[k+1], "="); ok && strings.HasPrefix(strings.ToLower(key), "alias.") && !strings.HasPrefix(val, "!") {
				aliases[key[len("alias."):]] = val
			}
		}
	}
	if len(aliases) == 0 {
		return args
	}
	for k := 0; k < len(args); k++ {
		a := args[k]
		if a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--config-env" {
			k++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		if val, ok := aliases[a]; ok {
			return append(append(slices.Clip(args[:k]), strings.Fields(val)...), args[k+1:]...)
		}
		break
	}
	return args
}

// gitOutputs are the files git subcommands write by option: log, diff and show
// --output=F, format-patch -o DIR, archive -o F, bundle create F, checkout-index
// --prefix=P, and the folder git init and git clone make.
func gitOutputs(args []string) []string {
	sub, rest := gitSubcommand(args)
	rest = checkoutIndexPrefix(sub, rest)
	var out []string
	for k, a := range rest {
		val, ok := "", false
		switch {
		case strings.HasPrefix(a, "--output=") || strings.HasPrefix(a, "--output-directory=") || strings.HasPrefix(a, "--prefix="):
			_, val, _ = strings.Cut(a, "=")
			ok = sub != "checkout-index" || strings.HasPrefix(a, "--prefix=")
		case (a == "--output" || a == "-o" || a == "--output-directory") && k+1 < len(rest) && sub != "checkout-index":
			val, ok = rest[k+1], sub == "format-patch" || sub == "archive" || a == "--output"
		case strings.HasPrefix(a, "-o") && len(a) > 2 && (sub == "format-patch" || sub == "archive"):
			val, ok = a[2:], true // -oDIR
		case strings.HasPrefix(a, "--outp") && strings.Contains(a, "=") && sub != "checkout-index":
			_, val, _ = strings.Cut(a, "=") // git takes --output-dir=, --outp= as --output-directory= or --output=
			ok = true
		}
		if !ok {
			continue
		}
		if sub == "format-patch" || sub == "checkout-index" {
			val += map[bool]string{true: "x", false: "/x"}[strings.HasSuffix(val, "/") || sub == "checkout-index"] // a file in it
		}
		out = append(out, val)
	}
	// Plumbing that writes the files it is given (an eleventh red team: merge-file
	// --union ~/.bashrc, mailinfo MSG PATCH, interpret-trailers --in-place, marks files,
	// credential-store --file, index-pack -o, read-tree --index-output,
	// --build-fake-ancestor, --separate-git-dir, which turns .git into a file).
	for k, a := range rest {
		for _, o := range []string{"--export-marks", "--file", "--index-output", "--build-fake-ancestor", "--separate-git-dir"} {
			if o == "--file" && sub != "credential-store" {
				continue // commit --file, tag --file read theirs
			}
			if v, ok := strings.CutPrefix(a, o+"="); ok {
				out = append(out, v)
			} else if a == o && k+1 < len(rest) {
				out = append(out, rest[k+1])
			} else {
				continue
			}
			if o == "--separate-git-dir" {
				out = append(out, ".git", strings.TrimSuffix(out[len(out)-1], "/")+"/config")
			}
		}
		if a == "-o" && k+1 < len(rest) && sub == "index-pack" {
			out = append(out, rest[k+1])
		}
	}
	switch ops := operandsOf(rest); {
	case sub == "merge-file" && len(ops) >= 1 && !slices.Contains(rest, "-p") && !slices.Contains(rest, "--stdout"):
		out = append(out, ops[0])
	case sub == "mailinfo" && len(ops) >= 2:
		out = append(out, ops[0], ops[1])
	case sub == "interpret-trailers" && slices.Contains(rest, "--in-place"):
		out = append(out, ops...)
	case sub == "bundle" && len(ops) >= 2 && ops[0] == "create":
		out = append(out, ops[1])
	case sub == "init" && len(ops) >= 1:
		out = append(out, ops[0])
	case sub == "clone" && len(ops) >= 2:
		out = append(out, ops[1])
	}
	return out
}

// buildOutputs are the files compilers and installers write by option: go build -o,
// cc -o, rustc -o, cargo build --out-dir, pip install --target, ssh-keygen -f.
func buildOutputs(name string, args []string) []string {
	var out []string
	dir := ""
	for k, a := range args {
		next := ""
		if k+1 < len(args) {
			next = args[k+1]
		}
		switch {
		case name == "go" && a == "-C" && next != "":
			dir = next
		case a == "-o" && next != "" && buildsTo(name):
			out = append(out, next)
		case strings.HasPrefix(a, "-o") && len(a) > 2 && buildsTo(name) && name != "go":
			out = append(out, a[2:])
		case buildsTo(name) && name != "go" && (a == "-MF" || a == "-Xlinker" && next == "-o") && k+1 < len(args):
			if a == "-MF" {
				out = append(out, next) // the dependency file
			} else if k+3 < len(args) && args[k+2] == "-Xlinker" {
				out = append(out, args[k+3]) // -Xlinker -o -Xlinker F: the linker's -o
			}
		case buildsTo(name) && name != "go" && strings.HasPrefix(a, "-MF") && len(a) > 3:
			out = append(out, a[3:])
		case buildsTo(name) && name != "go" && strings.HasPrefix(a, "-Wl,"):
			// -Wl,-o,F and -Wl,-oF, -Wl,--output=F: what the linker writes (the
			// thirteenth red team).
			parts := strings.Split(a[len("-Wl,"):], ",")
			for j, p := range parts {
				switch {
				case (p == "-o" || p == "--output") && j+1 < len(parts):
					out = append(out, parts[j+1])
				case strings.HasPrefix(p, "--output="):
					out = append(out, p[len("--output="):])
				case strings.HasPrefix(p, "-o") && len(p) > 2:
					out = append(out, p[2:])
				}
			}
		case (a == "--out-dir" || a == "--artifact-dir" || a == "--target-dir") && next != "" && name == "cargo":
			out = append(out, next+"/x")
		case (a == "--target" || a == "-t") && next != "" && strings.HasPrefix(name, "pip"),
			(a == "--prefix" || a == "-C" && name == "pnpm") && next != "" && (name == "npm" || name == "pnpm" || name == "yarn"):
			out = append(out, next+"/x")
		case a == "-f" && next != "" && name == "ssh-keygen" && !slices.ContainsFunc(args, func(o string) bool {
			return o == "-l" || o == "-y" || o == "-F" || o == "-R" || o == "-E" || o == "-H"
		}):
			out = append(out, next, next+".pub")
		}
	}
	for i, f := range out {
		if dir != "" && !path.IsAbs(f) && !strings.HasPrefix(f, "~") {
			out[i] = path.Join(dir, f) // go build -C DIR -o F
		}
	}
	return out
}

// buildsTo reports the compilers whose -o names the file they write.
func buildsTo(name string) bool {
	switch name {
	case "go", "gcc", "cc", "g++", "c++", "clang", "clang++", "ld", "tcc", "rustc":
		return true
	}
	return false
}

// toolConfigWrites are the user configs a tool's own command writes: npm config set
// (~/.npmrc), pip config set, go env -w, gh config set and gh alias set, and
// ssh-copy-id to this machine (~/.ssh/authorized_keys).
func toolConfigWrites(name string, args []string) []string {
	if len(args) < 2 {
		return nil
	}
	key := ""
	if len(args) > 2 {
		key = strings.ToLower(strings.SplitN(args[2], "=", 2)[0])
	}
	switch {
	case (name == "npm" || name == "pnpm") && args[0] == "config" && args[1] == "set" &&
		!strings.Contains(key, "script") && !strings.Contains(key, "shell") && !strings.Contains(key, "editor") &&
		!strings.Contains(key, "git") && !strings.Contains(key, "node-options") && !strings.Contains(key, "prefix") &&
		!strings.Contains(key, "registry") && !strings.Contains(key, "config") && !strings.Contains(key, "hook"):
		return nil // npm config set init-author-name: names nothing that runs
	case (name == "npm" || name == "pnpm") && args[0] == "config" && (args[1] == "set" || args[1] == "edit"),
		name == "npm" && args[0] == "set":
		return []string{"~/.npmrc"}
	case name == "yarn" && args[0] == "config" && args[1] == "set":
		return []string{"~/.yarnrc", "~/.yarnrc.yml"}
	case strings.HasPrefix(name, "pip") && args[0] == "config" && (args[1] == "set" || args[1] == "edit"):
		return []string{"~/.config/pip/pip.conf"}
	case name == "go" && args[0] == "env" && slices.Contains(args, "-w"):
		for _, a := range args[1:] {
			switch strings.SplitN(a, "=", 2)[0] {
			case "GOFLAGS", "GOTOOLCHAIN", "GONOSUMDB", "GONOSUMCHECK", "GOINSECURE", "GOSUMDB", "GOPROXY", "CC", "CXX",
				"CGO_CFLAGS", "CGO_LDFLAGS", "CGO_CXXFLAGS", "GOROOT", "GOBIN", "GOENV", "GOEXPERIMENT", "GOVCS":
				return []string{"~/.config/go/env"} // -toolexec, another toolchain or proxy
			}
		}
	case name == "gh" && args[0] == "config" && args[1] == "set" && (key == "editor" || key == "pager" || key == "browser"),
		name == "gh" && args[0] == "alias" && (args[1] == "import" || args[1] == "set" && (slices.Contains(args, "--shell") || slices.Contains(args, "-s") || len(args) > 3 && strings.HasPrefix(args[3], "!"))):
		return []string{"~/.config/gh/config.yml"}
	case name == "ssh-copy-id":
		for _, a := range operandsOf(args) {
			host := a[strings.LastIndexByte(a, '@')+1:]
			if host == "localhost" || strings.HasPrefix(host, "127.") || host == "::1" {
				return []string{"~/.ssh/authorized_keys"}
			}
		}
	}
	return nil
}

// splitOutputs are the first files split and csplit write: PREFIX followed by their
// suffix (split FILE PREFIX, csplit -f PREFIX).
func splitOutputs(name string, args []string) []string {
	prefix, suffix, format := "x", "", false
	if name == "csplit" {
		prefix = "xx"
	}
	var ops []string
	for k := 0; k < len(args); k++ {
		a := args[k]
		switch {
		case strings.HasPrefix(a, "--additional-suffix="):
			suffix = a[len("--additional-suffix="):]
		case (a == "-f" || a == "--prefix") && name == "csplit" && k+1 < len(args):
			prefix = args[k+1]
			k++
		case strings.HasPrefix(a, "--prefix=") && name == "csplit":
			prefix = a[len("--prefix="):]
		case (a == "-b" || a == "--suffix-format") && name == "csplit" && k+1 < len(args):
			suffix, format = csplitSuffix(args[k+1]), true
			k++
		case strings.HasPrefix(a, "--suffix-format=") && name == "csplit":
			suffix, format = csplitSuffix(a[len("--suffix-format="):]), true
		case a == "-a" || a == "-b" || a == "-l" || a == "-n" || a == "-C" || a == "-t" || a == "--suffix-length" || a == "--bytes" || a == "--lines" || a == "--number" || a == "--line-bytes" || a == "--separator" || a == "--filter":
			k++
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			ops = append(ops, a)
		}
	}
	if name == "split" && len(ops) >= 2 {
		prefix = ops[1]
	}
	if name == "csplit" && format {
		// PREFIX then FORMAT's text: the first name exactly, and PREFIX for the names
		// any number may spell.
		return []string{prefix + suffix, prefix + "aa"}
	}
	// The names are PREFIX, a suffix of letters or digits (two, or -a N, growing past
	// that), then --additional-suffix: ~/.bash, r and c make ~/.bashrc (red team).
	out := []string{prefix + "aa" + suffix, prefix + "00" + suffix}
	for n := 1; n <= 4; n++ {
		out = append(out, prefix+strings.Repeat("?", n)+suffix)
	}
	return out
}

// csplitSuffix is what csplit's -b FORMAT adds to the prefix for the first piece: its
// text with the printf directive taken out (%.0d prints nothing for 0, and FORMAT may
// hold a / : -f ~/.ss -b 'h/authorized_keys%.0d' wrote ~/.ssh/authorized_keys).
func csplitSuffix(format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			b.WriteByte(format[i])
			continue
		}
		if i+1 < len(format) && format[i+1] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		for i+1 < len(format) && strings.IndexByte("0123456789.-+ #'", format[i+1]) >= 0 {
			i++
		}
		i++ // the conversion letter
	}
	return b.String()
}

// remoteNamed are the files a downloader names after the URL in a folder it is given:
// curl -O --output-dir DIR URL, wget -P DIR URL.
func remoteNamed(name string, args []string) []string {
	dir, remote := "", name == "wget"
	var urls []string
	for k, a := range args {
		switch {
		case (a == "--output-dir" || a == "-P" && name == "wget" || a == "--directory-prefix") && k+1 < len(args):
			dir = args[k+1]
		case strings.HasPrefix(a, "--output-dir=") || strings.HasPrefix(a, "--directory-prefix="):
			_, dir, _ = strings.Cut(a, "=")
		case strings.HasPrefix(a, "-P") && len(a) > 2 && name == "wget":
			dir = a[2:]
		case a == "-O" && name == "curl" || a == "--remote-name" || a == "--remote-name-all" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && name == "curl" && strings.Contains(a, "O"):
			remote = true
		case strings.Contains(a, "://"):
			urls = append(urls, a)
		}
	}
	if !remote {
		return nil
	}
	if dir == "" {
		dir = "."
	}
	var out []string
	for _, u := range urls {
		b := path.Base(strings.SplitN(strings.SplitN(u, "?", 2)[0], "#", 2)[0])
		if b == "" || b == "." || b == "/" || strings.Contains(b, ":") {
			b = "index.html"
		}
		out = append(out, strings.TrimSuffix(dir, "/")+"/"+b)
	}
	return out
}

// outputOption is the file a downloader or filter writes: curl -o F, wget -O F, sort -o
// F, openssl -out F.
func outputOption(name string, args []string) []string {
	out := remoteNamed(name, args)
	// The short options that take a file: curl -o, -D (headers), -c (cookies); wget
	// -O, -o (log), -a; sort -o; openssl -out. They may end a cluster (curl -fsSLo F).
	short := map[string]string{"curl": "oDc", "wget": "Ooa", "sort": "o", "shuf": "o", "aria2c": "o", "http": "o", "xh": "o", "pv": ""}[name]
	for k, a := range args {
		next := ""
		if k+1 < len(args) {
			next = args[k+1]
		}
		switch {
		case (a == "--output" || a == "--output-document" || a == "-out" || a == "--out" || a == "--dump-header" ||
			a == "--cookie-jar" || a == "--trace" || a == "--trace-ascii" || a == "--stderr" || a == "--output-file" ||
			a == "--append-output") && next != "":
			out = append(out, next)
		case strings.HasPrefix(a, "--") && strings.Contains(a, "="):
			opt, v, _ := strings.Cut(a, "=")
			switch opt {
			case "--output", "--output-document", "--dump-header", "--cookie-jar", "--trace", "--trace-ascii", "--stderr", "--output-file", "--append-output":
				out = append(out, v)
			}
		case len(a) > 1 && a[0] == '-' && a[1] != '-' && short != "":
			// A cluster of short flags: the first that takes a value takes the rest of
			// the word, or the next word.
			for j := 1; j < len(a); j++ {
				if strings.IndexByte(short, a[j]) < 0 {
					continue
				}
				if a[j] == 'O' && name == "curl" {
					continue // curl -O: the remote name (remoteNamed)
				}
				if j+1 < len(a) {
					out = append(out, a[j+1:])
				} else if next != "" {
					out = append(out, next)
				}
				break
			}
		}
	}
	if name == "curl" {
		// --output-dir DIR holds what -o names (red team: --output-dir ~ -o .bashrc),
		// and -w %output{FILE} writes FILE.
		dir := ""
		for k, a := range args {
			if a == "--output-dir" && k+1 < len(args) {
				dir = args[k+1]
			} else if v, ok := strings.CutPrefix(a, "--output-dir="); ok {
				dir = v
			}
			for _, m := range curlOutputVar().FindAllStringSubmatch(a, -1) {
				out = append(out, m[1])
			}
		}
		if dir != "" {
			for i, o := range out {
				if !path.IsAbs(o) && !strings.HasPrefix(o, "~") && o != "-" {
					out[i] = strings.TrimSuffix(dir, "/") + "/" + o
				}
			}
		}
	}
	if name == "curl" && hasFlag(args, "J", "remote-header-name") || name == "wget" && slices.Contains(args, "--content-disposition") {
		// The server names the file, in the output folder: any name there (red team:
		// cd ~ && curl -OJ URL wrote ~/.profile).
		dir := "."
		for k, a := range args {
			if (a == "--output-dir" || a == "-P" || a == "--directory-prefix") && k+1 < len(args) {
				dir = args[k+1]
			} else if _, v, ok := strings.Cut(a, "="); ok && (strings.HasPrefix(a, "--output-dir=") || strings.HasPrefix(a, "--directory-prefix=")) {
				dir = v
			}
		}
		out = append(out, strings.TrimSuffix(dir, "/")+"/?*")
	}
	return out
}

// inPlaceTargets are the files sed and perl write: sed's w FILE commands, and the
// files of -i.
func inPlaceTargets(name string, args, operands []string) []string {
	var out []string
	if name == "sed" {
		// sed's w FILE command, in -e scripts or the first operand.
		for _, a := range args {
			if script, ok := strings.CutPrefix(a, "--expression="); ok {
				a = script
			} else if strings.HasPrefix(a, "-") {
				continue
			}
			out = append(out, sedWrites(a)...)
		}
	}
	if hasFlag(args, "i", "in-place") || slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--in-place") }) {
		if len(operands) > 1 {
			out = operands[1:]
		}
		// The backup -iSUFFIX keeps: FILE+SUFFIX, or SUFFIX with each * the file's
		// name, which may name another folder (the thirteenth red team: sed
		// -i'.git/hooks/*' moved a workspace file into .git/hooks).
		suffix := ""
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, "--in-place="); ok {
				suffix = v
			} else if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") {
				if i := strings.IndexByte(a, 'i'); i > 0 && i+1 < len(a) {
					suffix = a[i+1:] // perl -pi.bak, sed -i.bak
				}
			}
		}
		if suffix != "" {
			for _, f := range operands[min(1, len(operands)):] {
				if strings.Contains(suffix, "*") {
					b := strings.ReplaceAll(suffix, "*", path.Base(f))
					if !strings.Contains(b, "/") {
						b = path.Join(path.Dir(f), b)
					}
					out = append(out, b)
				} else {
					out = append(out, f+suffix)
				}
			}
		}
	}
	return out
}

// scriptedEditorFiles are the file operands of a scripted vim (-c wq, +cmd, -s script,
// -es), which it writes.
func scriptedEditorFiles(args []string) []string {
	if !slices.ContainsFunc(args, func(a string) bool {
		return a == "-c" || a == "-s" || a == "-es" || a == "-Es" || strings.HasPrefix(a, "+")
	}) {
		return nil
	}
	args = slices.Clone(args) // the caller's argv stays as it is
	for k, a := range args {
		if (a == "-c" || a == "-s" || a == "--cmd") && k+1 < len(args) {
			args[k+1] = "-" // the command, not a file
		}
	}
	var out []string
	for _, o := range operandsOf(args) {
		if !strings.HasPrefix(o, "+") {
			out = append(out, o)
		}
	}
	return out
}

// gawkInplaceFiles are the files gawk -i inplace 'prog' FILE... rewrites.
func gawkInplaceFiles(args, operands []string) []string {
	for k, a := range args {
		if (a == "-i" && k+1 < len(args) && args[k+1] == "inplace") || a == "-iinplace" || a == "--include=inplace" {
			if len(operands) > 2 {
				return operands[2:] // inplace, the program, then the files
			}
			break
		}
	}
	return nil
}

// gitSubcommand is git's subcommand and its arguments, past git's own options.
func gitSubcommand(args []string) (string, []string) {
	for k := 0; k < len(args); k++ {
		switch a := args[k]; {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--config-env":
			k++
		case !strings.HasPrefix(a, "-"):
			return a, args[k+1:]
		}
	}
	return "", nil
}

// patchValueOptions are patch's options that take the next word as their value.
var patchValueOptions = map[string]bool{"-p": true, "-d": true, "-i": true, "-o": true, "-r": true, "-B": true, "-z": true,
	"-V": true, "-D": true, "-F": true, "-g": true, "-Y": true}

// patchOperands are patch's operands: the file to patch and the patch file.
func patchOperands(args []string) []string {
	var ops []string
	for k := 0; k < len(args); k++ {
		switch a := args[k]; {
		case patchValueOptions[a]:
			k++
		case strings.HasPrefix(a, "-"):
		default:
			ops = append(ops, a)
		}
	}
	return ops
}

// gitRepoWrites are the files of a repository's own that a git command writes besides
// git config's: init and clone with a template (--template, -c init.templateDir) copy
// its hooks into .git/hooks; clone -c KEY=VALUE writes the new repository's config;
// lfs install writes hooks; maintenance register and start write ~/.gitconfig. git's
// subcommands that write fixed keys no command can hide in (remote add, push -u,
// branch --set-upstream-to, sparse-checkout) are not counted.
func gitRepoWrites(args []string) []string {
	var out []string
	sub, dir, gitDir, k := "", "", "", 0
	for ; k < len(args); k++ {
		a := args[k]
		if a == "-C" && k+1 < len(args) {
			dir = path.Join(dir, args[k+1])
		}
		if a == "--git-dir" && k+1 < len(args) {
			gitDir = args[k+1]
		} else if v, ok := strings.CutPrefix(a, "--git-dir="); ok {
			gitDir = v
		}
		if a == "-c" && k+1 < len(args) && strings.HasPrefix(strings.ToLower(args[k+1]), "init.templatedir=") ||
			strings.HasPrefix(strings.ToLower(a), "-cinit.templatedir=") {
			out = append(out, ".git/hooks/pre-commit")
		}
		if !strings.HasPrefix(a, "-") {
			sub = a
			break
		}
		if a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--config-env" {
			k++
		}
	}
	rest := args[min(k+1, len(args)):]
	for j, a := range rest {
		switch {
		case strings.HasPrefix(a, "--template") || a == "--separate-git-dir" && j+1 < len(rest):
			out = append(out, ".git/hooks/pre-commit")
		case sub == "clone" && (a == "-c" || a == "--config" || strings.HasPrefix(a, "--config=") || strings.HasPrefix(a, "-c") && len(a) > 2):
			dir := "."
			if ops := operandsOf(rest); len(ops) >= 2 {
				dir = ops[len(ops)-1]
			} else if len(ops) == 1 {
				dir = strings.TrimSuffix(path.Base(strings.TrimRight(ops[0], "/")), ".git")
			}
			out = append(out, path.Join(dir, ".git/config"))
		}
	}
	switch {
	case sub == "init" && gitDir != "":
		// GIT_DIR=~/.ssh git init makes a repository there: config, hooks and all.
		out = append(out, path.Join(gitDir, "config"), path.Join(gitDir, "hooks/pre-commit"))
	case sub == "lfs" && slices.Contains(rest, "install"):
		out = append(out, ".git/hooks/pre-push", "~/.gitconfig")
	case sub == "maintenance" && len(rest) > 0 && (rest[0] == "register" || rest[0] == "start"):
		out = append(out, "~/.gitconfig")
	}
	for i, f := range out {
		if dir != "" && !strings.HasPrefix(f, "~") && !path.IsAbs(f) {
			out[i] = path.Join(dir, f) // git -C DIR
		}
	}
	return out
}

// extractInto is the folder an extracting or copying command writes a tree of files
// into, which may hold start-up files (tar -x -C ~, unzip -d ~, rsync -a dotfiles/ ~/,
// cp -r dotfiles/. ~): "" when it writes no tree.
func extractInto(name string, args []string) string {
	switch name {
	case "tar", "bsdtar":
		extract := false
		dir := "."
		for k, a := range args {
			switch {
			case a == "-x" || a == "--extract" || a == "--get" || !strings.HasPrefix(a, "--") && strings.HasPrefix(a, "-") && strings.Contains(a, "x") || k == 0 && !strings.HasPrefix(a, "-") && strings.Contains(a, "x"):
				extract = true
			}
			if (a == "-C" || a == "--directory") && k+1 < len(args) {
				dir = args[k+1]
			} else if v, ok := strings.CutPrefix(a, "--directory="); ok {
				dir = v
			}
		}
		if extract && dir != "." {
			return dir
		}
	case "git":
		sub, rest := gitSubcommand(args)
		if sub == "clone" {
			if ops := operandsOf(rest); len(ops) >= 2 {
				return ops[len(ops)-1] // git clone URL DIR
			}
		}
		if sub == "apply" && slices.Contains(rest, "--unsafe-paths") {
			for _, a := range rest {
				if v, ok := strings.CutPrefix(a, "--directory="); ok {
					return v
				}
			}
		}
	case "7z", "7za", "7zz":
		for _, a := range args {
			if strings.HasPrefix(a, "-o") && len(a) > 2 {
				return a[2:]
			}
		}
	case "cpio":
		for k, a := range args {
			if (a == "-D" || a == "--directory") && k+1 < len(args) {
				return args[k+1]
			}
		}
	case "unsquashfs":
		for k, a := range args {
			if (a == "-d" || a == "-dest") && k+1 < len(args) {
				return args[k+1]
			}
		}
	case "python", "python3":
		// python3 -m tarfile -e ARCHIVE DIR, python3 -m zipfile -e ARCHIVE DIR.
		if len(args) >= 5 && args[0] == "-m" && (args[1] == "tarfile" || args[1] == "zipfile") && (args[2] == "-e" || args[2] == "--extract") {
			return args[4]
		}
	case "unzip", "patch":
		for k, a := range args {
			if a == "-d" && k+1 < len(args) {
				return args[k+1]
			} else if v, ok := strings.CutPrefix(a, "--directory="); ok && name == "patch" {
				return v
			}
		}
	case "rsync", "cp":
		if name == "cp" && !hasFlag(args, "rRa", "recursive") {
			return ""
		}
		var ops []string
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				ops = append(ops, a)
			}
		}
		if len(ops) >= 2 {
			return ops[len(ops)-1]
		}
	}
	return ""
}

// protectedOperandIn returns the first operand of Argv[from:to] that is a protected
// file, itself or through a glob (rm -f /etc/*); with inside, a folder that holds a
// protected file counts too (rm -r ~/.ssh, mv ~/.ssh x, chmod 777 ~/.ssh).
func (w *watch) protectedOperandIn(c *SimpleCommand, from, to int, inside bool) (string, bool) {
	is := w.protectedFile
	if inside {
		is = w.holdsProtected
	}
	for k := from; k < to; k++ {
		a := c.Argv[k]
		if strings.HasPrefix(a, "-") || c.Partial != nil && c.Partial[k] {
			continue
		}
		if is(a) {
			return a, true
		}
		if strings.ContainsAny(a, "*?[") {
			for _, m := range w.globAbs(a) {
				if is(m) {
					return a + " (" + m + ")", true
				}
			}
		}
	}
	return "", false
}

// tightens reports a chmod mode that only takes permissions away from group and
// others, keeping the owner's read (chmod 600 ~/.ssh/id_ed25519, chmod go-rwx):
// routine care of keys, not an attack on them.
func tightens(mode string) bool {
	if n, err := strconv.ParseUint(mode, 8, 32); err == nil && len(mode) >= 3 {
		return n&0o7077 == 0 && n&0o400 != 0
	}
	for _, clause := range strings.Split(mode, ",") {
		who, perms, ok := strings.Cut(clause, "-")
		if !ok || who == "" || strings.Trim(who, "go") != "" || strings.Trim(perms, "rwxX") != "" {
			return false
		}
	}
	return mode != ""
}

// linkedFiles are the files a link command (ln, cp -s, cp -l) makes a second name for:
// writing through that name writes them, later on the same line too (ln -s ../secret x
// && echo > x), before any link exists for the gate to resolve. So making the link is
// decided as writing them. A relative symbolic link's target is read from the link's
// folder, which may be the last operand's folder or, when that is a folder, the
// operand itself: every reading is a target.
func linkedFiles(args []string) []string {
	ops := operandsOf(args)
	dest := ""
	for k, a := range args {
		short := len(a) > 1 && a[0] == '-' && a[1] != '-'
		switch i := strings.IndexByte(a, 't'); {
		case strings.HasPrefix(a, "--target-directory="):
			dest = strings.TrimPrefix(a, "--target-directory=")
		case (a == "--target-directory" || short && i == len(a)-1) && k+1 < len(args):
			dest = args[k+1] // -t DIR, -st DIR
			ops = slices.DeleteFunc(slices.Clone(ops), func(o string) bool { return o == args[k+1] })
		case short && i > 0:
			dest = a[i+1:] // -tDIR
		}
	}
	if dest == "" {
		if len(ops) < 2 {
			return ops // ln -s TARGET: the link is made in the working folder
		}
		dest, ops = ops[len(ops)-1], ops[:len(ops)-1]
	}
	var out []string
	for _, src := range ops {
		out = appendNew(out, src)
		if !path.IsAbs(src) {
			out = appendNew(out, path.Join(path.Dir(dest), src), path.Join(dest, src))
		}
	}
	return out
}

// appendNew appends the elements not already in list.
func appendNew(list []string, elems ...string) []string {
	for _, e := range elems {
		if !slices.Contains(list, e) {
			list = append(list, e)
		}
	}
	return list
}

// TreeWrites are the folders a command writes below as a whole, file by file, at run
// time: rm -r, chown/chgrp -R, find -delete and find -exec with a writer of {}, a
// recursive cp or rsync into a folder, git clean, reset --hard, stash, checkout --
// PATHS and restore. Which
// files are hit is only known when it runs, so the policy decides what is below each
// folder now (a denied file, .git, a protected config inside) as written.
func TreeWrites(argv []string) []string {
	if len(argv) < 2 {
		return nil
	}
	name, args := path.Base(argv[0]), argv[1:]
	recursive := func(shorts string, longs ...string) bool {
		return slices.ContainsFunc(args, func(a string) bool {
			if slices.Contains(longs, a) {
				return true
			}
			return len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a[1:], shorts)
		})
	}
	if _, trees := compressorWrites(name, args); len(trees) > 0 {
		return trees
	}
	switch name {
	case "rm":
		if recursive("rR", "--recursive") {
			return operandsOf(args)
		}
	case "cp", "rsync":
		if name == "cp" && recursive("rRa", "--recursive", "--archive") && (recursive("sl", "--symbolic-link", "--link")) {
			// cp -rs SRC DST makes a forest of links to every file below SRC: a write
			// through one writes the file (red team: cp -rs ~ h; echo >> h/.bashrc).
			if ops := operandsOf(args); len(ops) >= 2 {
				return ops
			}
		}
		if recursive("rRa", "--recursive", "--archive") {
			for k, a := range args {
				if v, ok := strings.CutPrefix(a, "--target-directory="); ok {
					return []string{v}
				} else if a == "-t" && k+1 < len(args) {
					return []string{args[k+1]}
				}
			}
			if ops := operandsOf(args); len(ops) >= 2 {
				return ops[len(ops)-1:]
			}
		}
	case "chown", "chgrp":
		if ops := operandsOf(args); recursive("R", "--recursive") && len(ops) > 1 {
			return ops[1:]
		}
	case "find":
		return findTreeWrites(args)
	case "ln", "link":
		return linkedFiles(args) // a link to a folder writes what is below it
	case "tar", "bsdtar", "unzip":
		return extractTrees(name, args)
	case "ar", "jar", "pax", "cpio", "bsdcpio", "atool", "aunpack", "unrar", "cabextract", "dpkg", "dpkg-deb", "7z", "7za", "7zz", "unar", "lha", "arj":
		return unpackTrees(name, args)
	case "mv":
		return movedTrees(args) // what is below a moved folder leaves its path
	case "mount":
		return mountPoints(args) // what was there is hidden under what is mounted
	case "git":
		// git checkout-index --prefix=P writes the index's files below P, the home
		// folder's start-up files too where the index holds them (red team); git
		// worktree add PATH and move W PATH write a work tree there.
		sub, rest := gitSubcommand(args)
		rest = checkoutIndexPrefix(sub, rest)
		if sub == "checkout-index" {
			for _, a := range rest {
				if p, ok := strings.CutPrefix(a, "--prefix="); ok && p != "" {
					return []string{path.Dir(p + "x")}
				}
			}
		}
		if sub == "worktree" && len(rest) > 1 {
			// worktree add [-b NEW] PATH [COMMIT], worktree move WORKTREE PATH: the
			// path after the options, those with a value skipped.
			var ops []string
			for k := 1; k < len(rest); k++ {
				switch a := rest[k]; {
				case a == "-b" || a == "-B" || a == "--reason" || a == "--orphan":
					k++
				case strings.HasPrefix(a, "-"):
				default:
					ops = append(ops, a)
				}
			}
			switch {
			case rest[0] == "add" && len(ops) >= 1:
				return ops[:1]
			case rest[0] == "move" && len(ops) >= 2:
				return ops[1:2]
			}
		}
	}
	return nil
}

// movedTrees are mv's sources: moving a folder moves every file below it (the user
// config with its folder's parent).
func movedTrees(args []string) []string {
	var ops []string
	intoDir := false
	for k := 0; k < len(args); k++ {
		switch a := args[k]; {
		case a == "--":
			ops = append(ops, args[k+1:]...)
			k = len(args)
		case a == "-t" || a == "-S" || a == "--target-directory" || a == "--suffix":
			intoDir = intoDir || a == "-t" || a == "--target-directory"
			k++
		case strings.HasPrefix(a, "--target-directory="):
			intoDir = true
		case strings.HasPrefix(a, "-") && a != "-":
			if !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "tS") {
				// -ft DIR, -bS SUFFIX: the value is the next word (or the rest of this one).
				i := strings.IndexAny(a, "tS")
				intoDir = intoDir || a[i] == 't'
				if i == len(a)-1 {
					k++
				}
			}
		default:
			ops = append(ops, a)
		}
	}
	if intoDir {
		return ops
	}
	if len(ops) < 2 {
		return nil
	}
	return ops[:len(ops)-1]
}

// mountPoints is the folder mount mounts over: its last operand, or --target.
func mountPoints(args []string) []string {
	var ops []string
	for k := 0; k < len(args); k++ {
		switch a := args[k]; {
		case a == "--target" && k+1 < len(args):
			return []string{args[k+1]}
		case strings.HasPrefix(a, "--target="):
			return []string{strings.TrimPrefix(a, "--target=")}
		case slices.Contains([]string{"-t", "-o", "-O", "-L", "-U", "-N", "--types", "--options", "--test-opts", "--label", "--uuid", "--source", "--namespace", "--options-mode", "--options-source"}, a):
			k++
		case strings.HasPrefix(a, "-"):
		default:
			ops = append(ops, a)
		}
	}
	if len(ops) == 0 {
		return nil
	}
	return ops[len(ops)-1:]
}

// WithGitEnv is a git command's argv with the options its environment gives it spelled
// out (GIT_WORK_TREE as --work-tree, GIT_DIR as --git-dir, GIT_TEMPLATE_DIR as
// init's and clone's --template), so that the writes they decide are read off the words
// as the options' are; env is NAME=VALUE. Other commands' argv is returned as it is.
func WithGitEnv(argv, env []string) []string {
	if len(argv) == 0 || path.Base(argv[0]) != "git" {
		return argv
	}
	var pre, post []string
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		switch k {
		case "GIT_WORK_TREE":
			pre = append(pre, "--work-tree="+v)
		case "GIT_DIR":
			pre = append(pre, "--git-dir="+v)
		case "GIT_TEMPLATE_DIR":
			if slices.Contains(argv, "init") || slices.Contains(argv, "clone") {
				post = append(post, "--template="+v)
			}
		}
	}
	if len(pre)+len(post) == 0 {
		return argv
	}
	return slices.Concat(argv[:1], pre, argv[1:], post)
}

// WorkTreeWrites are the work-tree folders a git command rewrites or deletes files in
// wholesale (see gitTreeWrites). They are decided as TreeWrites are, but for the .git
// folders in them: git keeps its own repository.
func WorkTreeWrites(argv []string) []string {
	if len(argv) < 2 || path.Base(argv[0]) != "git" {
		return nil
	}
	return gitTreeWrites(argv[1:])
}

// extractTrees is the folder an archive is unpacked into (tar -x, unzip): its members
// may name any file below it.
func extractTrees(name string, args []string) []string {
	if name == "unzip" {
		for k, a := range args {
			if a == "-d" && k+1 < len(args) {
				return []string{args[k+1]}
			} else if v, ok := strings.CutPrefix(a, "-d"); ok && v != "" {
				return []string{v}
			}
		}
		if len(operandsOf(args)) > 0 && !slices.Contains(args, "-l") && !slices.Contains(args, "-t") && !slices.Contains(args, "-p") {
			return []string{"."}
		}
		return nil
	}
	extract := false
	for k, a := range args {
		if a == "--extract" || a == "--get" || k == 0 && !strings.HasPrefix(a, "-") && strings.Contains(a, "x") ||
			len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.Contains(a, "x") {
			extract = true
		}
	}
	if !extract {
		return nil
	}
	if dir := extractInto(name, args); dir != "" {
		return []string{dir}
	}
	return []string{"."}
}

// unpackTrees is the folder other unpackers write an archive's files into (red team:
// ar x and jar xf in the home folder replaced ~/.bashrc with the archive's): the
// working folder, or the one an option or operand names.
func unpackTrees(name string, args []string) []string {
	ops := operandsOf(args)
	first := ""
	if len(args) > 0 {
		first = strings.TrimPrefix(args[0], "-")
	}
	extracts := false
	switch name {
	case "ar", "jar":
		extracts = !strings.HasPrefix(first, "-") && strings.Contains(first, "x") // ar x, ar -xv, jar xf
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, "--output="); ok && name == "ar" {
				return []string{v}
			}
		}
		if name == "jar" && slices.Contains(args, "--extract") {
			extracts = true
		}
	case "pax":
		extracts = hasFlag(args, "r", "")
	case "cpio", "bsdcpio":
		extracts = hasFlag(args, "i", "extract")
	case "atool":
		extracts = hasFlag(args, "x", "extract")
	case "aunpack", "cabextract", "unar", "lha", "arj":
		extracts = true
	case "unrar", "7z", "7za", "7zz":
		extracts = len(ops) > 0 && (ops[0] == "x" || ops[0] == "e")
		if extracts && name == "unrar" && len(ops) >= 3 && strings.HasSuffix(ops[len(ops)-1], "/") {
			return []string{ops[len(ops)-1]}
		}
	case "dpkg", "dpkg-deb":
		for k, a := range args {
			if (a == "-x" || a == "-X" || a == "-R" || a == "--extract" || a == "--vextract" || a == "--raw-extract") && k+2 < len(args) {
				return []string{args[k+2]} // dpkg -x DEB DIR
			}
		}
		return nil
	}
	if !extracts {
		return nil
	}
	if dir := extractInto(name, args); dir != "" {
		return []string{dir}
	}
	for k, a := range args {
		switch {
		case (a == "-d" || a == "--directory" || a == "-X" || a == "--extract-to" || a == "-o") && k+1 < len(args) && name != "ar" && name != "jar":
			return []string{args[k+1]}
		case strings.HasPrefix(a, "--directory=") || strings.HasPrefix(a, "--extract-to="):
			_, v, _ := strings.Cut(a, "=")
			return []string{v}
		}
	}
	return []string{"."}
}

// findTreeWrites are find's starting points when it deletes what it finds, or runs a
// command that writes the file it found ({}): find . -delete, find . -exec cp x {} \;.
func findTreeWrites(args []string) []string {
	var starts []string
	k := 0
	for ; k < len(args); k++ {
		a := args[k]
		if a == "-H" || a == "-L" || a == "-P" || strings.HasPrefix(a, "-O") || strings.HasPrefix(a, "-D") && len(a) == 2 {
			if a == "-D" {
				k++
			}
			continue
		}
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
			break
		}
		starts = append(starts, a)
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	expr := args[k:]
	for j := 0; j < len(expr); j++ {
		switch expr[j] {
		case "-delete":
			return starts
		case "-exec", "-execdir", "-ok", "-okdir":
			end := j + 1
			for end < len(expr) && expr[end] != ";" && expr[end] != "+" {
				end++
			}
			inner := expr[j+1 : end]
			if slices.Contains(inner, "{}") && slices.Contains(WriteTargets(inner), "{}") || len(inner) > 0 && len(TreeWrites(inner)) > 0 {
				return starts
			}
			j = end
		}
	}
	return nil
}

// gitTreeWrites are the work-tree folders a git command rewrites or deletes files in
// wholesale: clean, reset --hard, stash, checkout -- PATHS (or .) and restore PATHS.
// (Switching branches is left out: every checkout would count.)
func gitTreeWrites(args []string) []string {
	dir, k := ".", 0
	tree := ""
	for ; k < len(args); k++ {
		a := args[k]
		if a == "-C" && k+1 < len(args) {
			if path.IsAbs(args[k+1]) {
				dir = path.Clean(args[k+1]) // path.Join(".", "/etc") is etc
			} else {
				dir = path.Join(dir, args[k+1])
			}
		}
		// --work-tree=.git/hooks checks a committed file out as a hook (the thirteenth
		// red team): the work tree is where the writes land.
		if a == "--work-tree" && k+1 < len(args) {
			tree = args[k+1]
		} else if v, ok := strings.CutPrefix(a, "--work-tree="); ok {
			tree = v
		}
		if !strings.HasPrefix(a, "-") {
			break
		}
		if a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--config-env" {
			k++
		}
	}
	if k >= len(args) {
		return nil
	}
	if tree != "" {
		dir = path.Join(dir, tree) // an absolute tree stands alone
		if path.IsAbs(tree) {
			dir = path.Clean(tree)
		}
	}
	sub, rest := args[k], args[k+1:]
	under := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			if !strings.HasPrefix(p, ":") { // a magic pathspec: the whole tree
				out = append(out, path.Join(dir, p))
			} else {
				out = append(out, dir)
			}
		}
		return out
	}
	switch sub {
	case "switch", "merge", "pull", "rebase", "cherry-pick", "revert", "am", "apply", "checkout-index", "read-tree", "worktree":
		// They rewrite whichever files the commits or patches name.
		return []string{dir}
	case "rm", "mv":
		if ops := operandsOf(rest); len(ops) > 0 {
			return under(ops)
		}
	case "clean":
		var kept []string // -e PATTERN excludes: its value is no path to clean
		for j := 0; j < len(rest); j++ {
			if rest[j] == "-e" || rest[j] == "--exclude" {
				j++
				continue
			}
			kept = append(kept, rest[j])
		}
		if ops := operandsOf(kept); len(ops) > 0 {
			return under(ops)
		}
		return []string{dir}
	case "reset":
		if slices.Contains(rest, "--hard") || slices.Contains(rest, "--merge") || slices.Contains(rest, "--keep") {
			return []string{dir}
		}
	case "stash":
		if len(rest) == 0 || rest[0] == "push" || rest[0] == "save" || strings.HasPrefix(rest[0], "-") {
			return []string{dir}
		}
	case "checkout", "restore":
		if i := slices.Index(rest, "--"); i >= 0 {
			return under(rest[i+1:])
		}
		if ops := operandsOf(rest); sub == "restore" && len(ops) > 0 {
			return under(ops)
		}
		// git checkout BRANCH (or paths, or both): whatever files differ are rewritten.
		return []string{dir}
	}
	return nil
}
