package shell

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The watchdog's judgement of one simple command, in the order it is made: where its
// redirections write, the shapes that are dangerous whatever the command (deny list,
// fork bombs, cron, disk tools, code from the network), the rules of the command by
// name, what it unpacks or copies a tree into, and the files it writes.

// command checks one simple command.
func (w *watch) command(an *Analysis, i int, c *SimpleCommand) Verdict {
	w.dir = c.Dir
	if v, bad := w.redirects(c); bad {
		return v
	}
	if len(c.Argv) == 0 {
		return Verdict{Action: Allow}
	}
	name := w.commandName(an, c)
	args := c.Argv[1:]
	for _, rule := range []func(*Analysis, int, *SimpleCommand, string, []string) (Verdict, bool){
		w.shapes, w.byName, w.unpacks, w.writes,
	} {
		if v, bad := rule(an, i, c, name, args); bad {
			return v
		}
	}
	return Verdict{Action: Allow}
}

// redirects judges where a command's redirections write.
func (w *watch) redirects(c *SimpleCommand) (Verdict, bool) {
	const protected = "refused: the redirection %s%s %s writes to %s, a protected system, device or shell start-up file. Write to a file inside the workspace instead."
	for _, r := range c.Redirects {
		if !isWrite(r.Op) {
			continue
		}
		if w.on("protected-write") && w.protectedFile(r.Target) {
			return deny("protected-write", protected, r.Fd, r.Op, r.Target, r.Target), true
		}
		if w.on("protected-write") && strings.ContainsAny(r.Target, "*?[") {
			for _, m := range w.globAbs(r.Target) {
				if w.protectedFile(m) {
					return deny("protected-write", protected, r.Fd, r.Op, r.Target, m), true
				}
			}
		}
		if c.DirUnknown && !r.Partial && !path.IsAbs(r.Target) && !strings.HasPrefix(r.Target, "~") && r.Target != "" && w.on("unknown-operand") && !strings.Contains(r.Op, "&") {
			return deny("unknown-operand", "refused: the redirection %s%s %s writes to a file in a folder the line's cd made unknown (it could be a start-up or system folder). cd to a literal path, or ask the user to allow this exact line.", r.Fd, r.Op, r.Target), true
		}
		if r.Partial && w.on("unknown-operand") && !strings.HasPrefix(r.Target, "/dev/tcp/") && !strings.HasPrefix(r.Target, "/dev/udp/") {
			return deny("unknown-operand", "refused: the redirection %s%s %s... writes to a file whose name cannot be known before the line runs (it could be a start-up or system file). Write to a literal path, or ask the user to allow this exact line.", r.Fd, r.Op, r.Target), true
		}
	}
	return Verdict{}, false
}

// commandName is the program a command runs: its name, or what a path to it links to
// (./d where d links to rm), or what the line copied there (cp /bin/rm d2; ./d2).
func (w *watch) commandName(an *Analysis, c *SimpleCommand) string {
	name := base(c.Argv[0])
	if strings.Contains(c.Argv[0], "/") && (c.Partial == nil || !c.Partial[0]) {
		p := c.Argv[0]
		if !path.IsAbs(p) && w.dir != "" {
			p = w.dir + "/" + p
		}
		if path.IsAbs(p) {
			if r := base(w.realPath(path.Clean(p))); r != name && r != "" {
				name = r
			}
		}
	}
	if copied, ok := an.Copies[c.Argv[0]]; ok {
		name = base(copied)
	}
	return name
}

// shapes judges what is dangerous whatever the command's name: the deny list, fork
// bombs, cron and other persistence, disk tools, and code run from the network.
func (w *watch) shapes(an *Analysis, i int, c *SimpleCommand, name string, args []string) (Verdict, bool) {
	if w.on("deny-command") {
		if w.denied == nil {
			w.denied = newPatternSet(w.cfg.DenyCommands)
		}
		if w.denied.match(name) {
			return deny("deny-command", "refused: %s destroys data or stops the machine and is on the watchdog's deny list; it is never run for an agent.", name), true
		}
	}
	if w.on("fork-bomb") {
		if v, bad := forkBomb(an, i, c, name, args); bad {
			return v, true
		}
	}
	if w.on("cron") && name == "crontab" && !slices.Contains(args, "-l") {
		return deny("cron", "refused: crontab installs or edits a cron table, which runs commands later without anyone watching. Ask the user to set it up."), true
	}
	if w.on("cron") {
		if v, bad := persists(name, args); bad {
			return v, true
		}
	}
	if w.on("disk-tool") {
		if v, bad := diskCommand(c, name, args); bad {
			return v, true
		}
	}
	if w.on("remote-exec") {
		if v, bad := w.fromNetwork(an, i, c, name); bad {
			return v, true
		}
	}
	if w.on("no-preserve-root") && slices.Contains(args, "--no-preserve-root") {
		return deny("no-preserve-root", "refused: --no-preserve-root lets %s operate on /.", name), true
	}
	return Verdict{}, false
}

// forkBomb finds the shapes of a fork bomb: a function that calls itself in a pipe or
// the background, background starts in an endless loop, xargs -P 0 fed endlessly, and
// interpreters' forking one-liners.
func forkBomb(an *Analysis, i int, c *SimpleCommand, name string, args []string) (Verdict, bool) {
	switch {
	case c.Func != "" && name == c.Func && (c.Pipeline != 0 || c.Background):
		return deny("fork-bomb", "refused: function %s calls itself in a pipe or in the background, the shape of a fork bomb.", c.Func), true
	case c.Loop && c.Background && !waitsInLoop(an):
		return deny("fork-bomb", "refused: %s is started in the background inside a loop that never ends, the shape of a fork bomb.", name), true
	case c.Loop && detaches(name, args) && !waitsInLoop(an):
		return deny("fork-bomb", "refused: %s starts a detached process on every turn of a loop that never ends, the shape of a fork bomb.", name), true
	case (name == "xargs" || name == "parallel") && unlimitedProcs(args) && c.Pipeline != 0 && fedEndlessly(an, i, c):
		return deny("fork-bomb", "refused: xargs -P 0 starts a process for every input line without limit, fed by a stream that does not end (yes, a huge seq): a process flood."), true
	case c.Background && c.Func != "" && recursive(an, c.Func):
		return deny("fork-bomb", "refused: function %s starts a background process and calls itself, the shape of a fork bomb.", c.Func), true
	case forkOneLiner(name, args):
		return deny("fork-bomb", "refused: the %s one-liner forks in a loop, the shape of a fork bomb.", name), true
	}
	return Verdict{}, false
}

// socketFD reports a descriptor the line opened on /dev/tcp or /dev/udp (exec 3<>/dev/tcp/...).
func socketFD(an *Analysis, fd string) bool {
	for _, c := range an.Commands {
		for _, r := range c.Redirects {
			if r.Fd == fd && (strings.HasPrefix(r.Target, "/dev/tcp/") || strings.HasPrefix(r.Target, "/dev/udp/")) {
				return true
			}
		}
	}
	return false
}

// detaches reports a command that starts another in the background and returns at
// once: setsid -f, screen -dm, tmux new -d, daemonize, start-stop-daemon -b.
func detaches(name string, args []string) bool {
	switch name {
	case "setsid":
		return hasFlag(args, "f", "fork")
	case "screen":
		return slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-d") || a == "-Dm" })
	case "tmux":
		return slices.Contains(args, "-d")
	case "daemonize", "daemon":
		return true
	case "start-stop-daemon":
		return hasFlag(args, "b", "background")
	}
	return false
}

// waitsInLoop reports a wait inside an endless loop of the line: while true; do ./server
// & wait $!; done starts one process at a time.
func waitsInLoop(an *Analysis) bool {
	return slices.ContainsFunc(an.Commands, func(c SimpleCommand) bool {
		return c.Loop && len(c.Argv) > 0 && c.Argv[0] == "wait"
	})
}

// diskCommand judges the tools that destroy a device's contents.
func diskCommand(c *SimpleCommand, name string, args []string) (Verdict, bool) {
	if v, bad := diskTool(name, args); bad {
		return v, true
	}
	if (strings.HasPrefix(name, "mk") || strings.HasPrefix(name, "newfs") || name == "mformat") && mkfsSet().match(name) {
		if dev, bad := onDevice(c, 1); bad {
			return deny("disk-tool", "refused: %s on %s makes a new file system on a device, destroying what it holds. Make it on an image file in the workspace instead.", name, dev), true
		}
	}
	if name == "shred" {
		if dev, bad := onDevice(c, 1); bad {
			return deny("disk-tool", "refused: shred overwrites %s, a device, destroying what it holds.", dev), true
		}
	}
	if name == "wipefs" && (hasFlag(args, "a", "all") || hasFlag(args, "o", "offset")) {
		if dev, bad := onDevice(c, 1); bad {
			return deny("disk-tool", "refused: wipefs erases the signatures on %s, which makes its file systems unreadable.", dev), true
		}
	}
	return Verdict{}, false
}

// fromNetwork judges code that comes from the network: a download piped or
// substituted into an interpreter, a reverse shell, a script the line downloaded.
func (w *watch) fromNetwork(an *Analysis, i int, c *SimpleCommand, name string) (Verdict, bool) {
	if v, bad := w.remoteExec(an, i, c, name); bad {
		return v, true
	}
	if !w.interpreter(name) {
		return Verdict{}, false
	}
	for _, r := range c.Redirects {
		if strings.HasPrefix(r.Target, "/dev/tcp/") || strings.HasPrefix(r.Target, "/dev/udp/") {
			return deny("remote-exec", "refused: %s reads or writes %s, a network connection: a shell driven from the network (a reverse shell).", name, r.Target), true
		}
		if strings.HasSuffix(r.Op, "&") && socketFD(an, r.Target) {
			// exec 3<>/dev/tcp/host/80; bash <&3
			return deny("remote-exec", "refused: %s reads descriptor %s, which the line opened on a network connection: a shell driven from the network (a reverse shell).", name, r.Target), true
		}
	}
	for _, a := range c.Argv[1:] {
		if strings.HasPrefix(a, "-") || a == "run" && (name == "deno" || name == "bun") {
			continue
		}
		if strings.HasPrefix(a, "http://") || strings.HasPrefix(a, "https://") {
			return deny("remote-exec", "refused: %s runs its program from %s, unseen. Download it, read it, then run it in another call.", name, a), true
		}
		break
	}
	if f, ok := w.runsDownloaded(an, i, c, name); ok {
		return deny("remote-exec", "refused: %s runs %s, which a downloader on the same line fetched, unseen. Download it, read it, then run it in another call.", name, f), true
	}
	return Verdict{}, false
}

// byName applies the rules of the command by its name.
func (w *watch) byName(an *Analysis, i int, c *SimpleCommand, name string, args []string) (Verdict, bool) {
	if destroys(name, args) && w.on("find-delete") {
		// find ~ | xargs rm -f: every file under the lister's folders.
		if roots, expr := listedRoots(an, i, c); roots != nil {
			if t, ok := w.protectedTree(roots, 1, false); ok && !w.tempCleanup(roots, expr) {
				return deny("find-delete", "refused: %s is fed every file %s lists under %s, a whole system or home tree. List the workspace directory you mean.", name, base(roots.Argv[0]), t), true
			}
		}
	}
	switch name {
	case "rm", "unlink", "rmdir", "shred":
		return w.remove(c, name, args)
	case "srm", "wipe", "trash-put", "trash", "gio":
		return w.otherDeleters(c, name, args)
	case "git":
		return w.gitOverTree(c, args)
	case "gzip", "pigz", "bzip2", "pbzip2", "xz", "pixz", "lzma", "zstd", "pzstd", "lz4", "lzip", "plzip", "lzop",
		"brotli", "compress", "gunzip", "unpigz", "bunzip2", "unxz", "unlzma", "unzstd", "unlz4", "uncompress":
		// -r replaces every file below a folder by its compressed form: a whole tree.
		if _, trees := compressorWrites(name, args); len(trees) > 0 && w.on("rm-tree") {
			if t, ok := w.protectedTree(c, 1, false); ok {
				return deny("rm-tree", "refused: %s -r replaces every file below %s, a whole system or home tree.", name, t), true
			}
		}
	case "zip", "7za", "7zz":
		// zip -m and 7z -sdel delete what they archive.
		if w.on("rm-tree") && (name == "zip" && hasFlag(args, "m", "move") || slices.Contains(args, "-sdel")) {
			if t, ok := w.protectedTree(c, 1, false); ok {
				return deny("rm-tree", "refused: %s deletes the files it archives, and %s is a whole system or home tree.", name, t), true
			}
		}
	case "tar", "bsdtar", "unzip", "rsync", "cp", "cpio", "7z":
		if w.on("rm-tree") && (slices.Contains(args, "--remove-files") || slices.Contains(args, "--remove-source-files") || slices.Contains(args, "-sdel")) {
			if t, ok := w.protectedTree(c, 1, false); ok {
				return deny("rm-tree", "refused: %s deletes the files it copies, and %s is a whole system or home tree.", name, t), true
			}
		}
	case "rclone":
		return w.rclone(c)
	case "setfacl", "chattr", "chcon":
		if w.on("perm-tree") && hasFlag(args, "R", "recursive") {
			if t, ok := w.protectedTree(c, 1, false); ok {
				return deny("perm-tree", "refused: %s -R on %s changes the permissions or attributes of a whole system or home tree.", name, t), true
			}
		}
		// The permissions or attributes of a protected file: setfacl -m o::rwx
		// /etc/shadow, chattr +i ~/.bashrc (the mode word comes first).
		if t, ok := w.protectedOperandIn(c, firstOperand(c.Argv, 1)+1, len(c.Argv), false); ok && w.on("protected-write") {
			return deny("protected-write", "refused: %s on %s changes a protected system or start-up file's permissions or attributes.", name, t), true
		}
	case "chmod", "chown", "chgrp":
		return w.permissions(c, name, args)
	case "find":
		if w.on("find-delete") && (slices.Contains(args, "-delete") || findRemoves(an, i)) {
			return w.findDelete(c)
		}
	case "fd", "fdfind":
		// fd PATTERN PATH... -x CMD: the paths after the pattern are where it looks.
		if w.on("find-delete") && findRemoves(an, i) {
			var starts []int
			seen := 0
			for k := 1; k < len(c.Argv); k++ {
				a := c.Argv[k]
				if a == "-x" || a == "-X" || a == "--exec" || a == "--exec-batch" {
					break
				}
				if strings.HasPrefix(a, "-") {
					if a == "-t" || a == "-e" || a == "-E" || a == "-d" || a == "--type" || a == "--extension" || a == "--exclude" || a == "--max-depth" {
						k++
					}
					continue
				}
				if seen++; seen > 1 {
					starts = append(starts, k)
				}
			}
			if t, ok := w.protectedTree(operandsAt(c, starts), 1, false); ok {
				return deny("find-delete", "refused: %s over %s runs a deleting command on every file of a whole system or home tree. Search the workspace directory you mean.", name, t), true
			}
		}
	case "mv":
		return w.move(c, args)
	case "kill", "pkill", "killall", "skill", "snice", "fuser":
		if w.on("kill-all") {
			return w.kill(an, c, name, args)
		}
	case "init", "telinit":
		if w.on("kill-all") && len(args) > 0 && (args[0] == "0" || args[0] == "6" || args[0] == "1" || args[0] == "s" || args[0] == "S") {
			return deny("kill-all", "refused: %s %s changes the system's runlevel (halt, reboot or single-user).", name, args[0]), true
		}
	case "loginctl":
		for _, a := range args {
			switch a {
			case "terminate-user", "kill-user", "terminate-session", "kill-session", "terminate-seat":
				if w.on("kill-all") {
					return deny("kill-all", "refused: loginctl %s ends a user's or seat's every process.", a), true
				}
			}
		}
	case "mount", "umount":
		// Mounting over a system or home tree hides it; unmounting one takes it away.
		if w.on("rm-tree") && !slices.ContainsFunc(args, func(a string) bool { return a == "-l" && name == "mount" }) {
			ops := operandsOf(args)
			if name == "mount" && len(ops) > 0 {
				ops = ops[len(ops)-1:]
			}
			for _, o := range ops {
				if n := w.norm(o); n == "/" || n == "~" || slices.Contains(w.cfg.ProtectedTrees, n) && !tempFolder(n) || w.ancestorOfHome(n) {
					return deny("rm-tree", "refused: %s on %s hides or takes away a whole system or home tree.", name, o), true
				}
			}
		}
	case "systemctl":
		for _, a := range args {
			switch a {
			case "poweroff", "reboot", "halt", "kexec", "rescue", "emergency", "suspend", "hibernate", "isolate":
				if w.on("kill-all") {
					return deny("kill-all", "refused: systemctl %s stops or restarts the machine.", a), true
				}
			}
		}
	case "dd", "dcfldd", "dc3dd", "sg_dd":
		return w.dd(c, args)
	}
	return Verdict{}, false
}

// remove judges rm, unlink and rmdir: a recursive delete of a system or home tree or
// of an operand that cannot be known, and deleting a protected file (rm /etc/passwd,
// unlink ~/.bashrc, rm -rf ~/.ssh).
func (w *watch) remove(c *SimpleCommand, name string, args []string) (Verdict, bool) {
	recursive := name == "rm" && hasFlag(args, "rR", "recursive")
	if recursive && w.on("rm-tree") {
		if t, ok := w.protectedTree(w.withoutLinks(c), 1, true); ok {
			return deny("rm-tree", "refused: rm -r on %s would delete a whole system or home tree. Name the exact directory inside the workspace you mean to remove.", t), true
		}
		if v, bad := w.unknownOperand(c, 1, "rm -r"); bad {
			return v, true
		}
	}
	if t, ok := w.protectedOperandIn(c, 1, len(c.Argv), recursive); ok && w.on("protected-write") {
		return deny("protected-write", "refused: %s of %s deletes a protected system, device or shell start-up file.", name, t), true
	}
	return Verdict{}, false
}

// otherDeleters judges deleters by another name: srm -r, wipe -r, trash-put, gio
// trash|remove.
func (w *watch) otherDeleters(c *SimpleCommand, name string, args []string) (Verdict, bool) {
	from := 1
	if name == "gio" {
		if len(args) == 0 || args[0] != "trash" && args[0] != "remove" {
			return Verdict{}, false
		}
		from = 2
	}
	if t, ok := w.protectedTree(w.withoutLinks(c), from, true); ok && w.on("rm-tree") {
		return deny("rm-tree", "refused: %s on %s would delete a whole system or home tree. Name the exact directory inside the workspace you mean to remove.", name, t), true
	}
	if t, ok := w.protectedOperandIn(c, from, len(c.Argv), true); ok && w.on("protected-write") {
		return deny("protected-write", "refused: %s of %s deletes a protected start-up, key or system file.", name, t), true
	}
	return Verdict{}, false
}

// gitOverTree judges git commands that delete or overwrite a work tree given as a
// system or home folder (git --work-tree=/ clean -fdx).
func (w *watch) gitOverTree(c *SimpleCommand, args []string) (Verdict, bool) {
	tree, _, _ := gitWorkTree(args)
	for _, e := range c.Env {
		if v, found := strings.CutPrefix(e, "GIT_WORK_TREE="); found {
			tree = v // GIT_WORK_TREE=~ git checkout -f
		}
	}
	sub, _ := gitSubcommand(args)
	if tree == "" || !w.on("rm-tree") {
		return Verdict{}, false
	}
	switch {
	case sub == "clean" && hasFlag(args, "f", "force"),
		sub == "reset" && slices.Contains(args, "--hard"),
		sub == "checkout" || sub == "restore" || sub == "switch" || sub == "pull" || sub == "merge" || sub == "am" ||
			sub == "apply" || sub == "cherry-pick" || sub == "rebase" || sub == "read-tree",
		sub == "stash" && (slices.Contains(args, "-a") || slices.Contains(args, "pop") || slices.Contains(args, "apply")):
		if n := w.norm(tree); n == "/" || n == "~" || slices.Contains(w.cfg.ProtectedTrees, n) || w.ancestorOfHome(n) {
			return deny("rm-tree", "refused: git %s with %s as the work tree deletes or overwrites files across a whole system or home tree (start-up files among them).", sub, tree), true
		}
	}
	return Verdict{}, false
}

// rcloneDeletes says which local operands rclone's subcommands delete from: purge,
// delete, rmdirs and deletefile their operands, sync and bisync the destination (and
// bisync the source), move and moveto the source.
var rcloneDeletes = map[string]string{"purge": "all", "delete": "all", "rmdirs": "all", "rmdir": "all",
	"deletefile": "all", "sync": "last", "bisync": "all", "move": "first", "moveto": "first"}

// rcloneValueFlags are rclone's common flags that take a value as the next word.
var rcloneValueFlags = map[string]bool{"--config": true, "--log-file": true, "--log-level": true, "--transfers": true,
	"--checkers": true, "--exclude": true, "--include": true, "--filter": true, "--filter-from": true, "--exclude-from": true,
	"--include-from": true, "--files-from": true, "--bwlimit": true, "--backup-dir": true, "--suffix": true, "--min-age": true,
	"--max-age": true, "--min-size": true, "--max-size": true, "--max-depth": true, "--retries": true, "--stats": true,
	"--timeout": true, "--contimeout": true, "--user-agent": true, "--order-by": true, "--max-transfer": true,
	"--cache-dir": true, "--temp-dir": true, "--compare-dest": true, "--copy-dest": true}

// rclone judges rclone's deleting subcommands on local paths as rm -r of them (a
// remote is written NAME:PATH).
func (w *watch) rclone(c *SimpleCommand) (Verdict, bool) {
	var ops []int
	for k := 1; k < len(c.Argv); k++ {
		a := c.Argv[k]
		if strings.HasPrefix(a, "-") {
			if rcloneValueFlags[a] {
				k++
			}
			continue
		}
		ops = append(ops, k)
	}
	if len(ops) < 2 || !w.on("rm-tree") {
		return Verdict{}, false
	}
	sub := c.Argv[ops[0]]
	paths := ops[1:]
	switch rcloneDeletes[sub] {
	case "":
		return Verdict{}, false
	case "last":
		paths = paths[len(paths)-1:]
	case "first":
		paths = paths[:1]
	}
	var local []int
	for _, k := range paths {
		if colon := strings.IndexByte(c.Argv[k], ':'); colon < 0 || strings.ContainsRune(c.Argv[k][:colon], '/') {
			local = append(local, k)
		}
	}
	roots := operandsAt(c, local)
	if t, ok := w.protectedTree(roots, 1, false); ok {
		return deny("rm-tree", "refused: rclone %s on %s deletes files across a whole system or home tree. Name a folder inside the workspace.", sub, t), true
	}
	return w.unknownOperand(roots, 1, "rclone "+sub)
}

// operandsAt is c reduced to its name and the arguments at idx, each still marked
// as computed at run time where it was.
func operandsAt(c *SimpleCommand, idx []int) *SimpleCommand {
	sub := *c
	sub.Argv = []string{c.Argv[0]}
	sub.Partial = nil
	if c.Partial != nil {
		sub.Partial = []bool{c.Partial[0]}
	}
	for _, k := range idx {
		sub.Argv = append(sub.Argv, c.Argv[k])
		if c.Partial != nil {
			sub.Partial = append(sub.Partial, k < len(c.Partial) && c.Partial[k])
		}
	}
	return &sub
}

// permissions judges chmod, chown and chgrp: of a whole system or home tree, of an
// operand that cannot be known, or of a protected file (chmod 777 /etc/shadow, chmod
// u+s /bin/bash); tightening a key's mode is routine (chmod 600 ~/.ssh/id_rsa).
func (w *watch) permissions(c *SimpleCommand, name string, args []string) (Verdict, bool) {
	if w.on("perm-tree") && (hasFlag(args, "R", "recursive") || w.treeIs(c, "/") || w.treeIs(c, "~")) {
		if t, ok := w.protectedTree(c, 1, false); ok {
			return deny("perm-tree", "refused: %s on %s changes permissions or owners of a whole system or home tree. Limit it to files inside the workspace.", name, t), true
		}
		// The first operand is the mode or the owner, not a path.
		if v, bad := w.unknownOperand(c, firstOperand(c.Argv, 1)+1, name+" -R"); bad {
			return v, true
		}
	}
	modeAt := chmodModeAt(name, c.Argv)
	tighten := name == "chmod" && modeAt < len(c.Argv) && tightens(c.Argv[modeAt])
	if t, ok := w.protectedOperandIn(c, modeAt+1, len(c.Argv), true); ok && !tighten && w.on("protected-write") {
		return deny("protected-write", "refused: %s on %s changes a protected system or start-up file's permissions or owner.", name, t), true
	}
	return Verdict{}, false
}

// findDelete judges find -delete (or -exec rm) by its start points only, not the
// expression after them, nor find's own options before them (find -H /, find -O3 /,
// find -D exec /, find -- /).
func (w *watch) findDelete(c *SimpleCommand) (Verdict, bool) {
	k := 1
	for k < len(c.Argv) {
		a := c.Argv[k]
		if a == "-H" || a == "-L" || a == "-P" || strings.HasPrefix(a, "-O") {
			k++
		} else if a == "-D" && k+1 < len(c.Argv) {
			k += 2
		} else {
			if a == "--" {
				k++
			}
			break
		}
	}
	var starts []int
	for ; k < len(c.Argv); k++ {
		if a := c.Argv[k]; strings.HasPrefix(a, "-") || a == "(" || a == "!" {
			break
		}
		starts = append(starts, k)
	}
	roots := operandsAt(c, starts)
	if t, ok := w.protectedTree(roots, 1, false); ok && !w.tempCleanup(roots, c.Argv[k:]) {
		return deny("find-delete", "refused: find over %s deletes files across a whole system or home tree. Start find in the workspace directory you mean.", t), true
	}
	return w.unknownOperand(roots, 1, "find -delete")
}

// move judges mv of a whole system or home tree, or of a protected file.
func (w *watch) move(c *SimpleCommand, args []string) (Verdict, bool) {
	if w.on("move-tree") {
		if t, ok := w.protectedTree(c, 1, false); ok {
			return deny("move-tree", "refused: mv of %s moves a whole system or home tree away.", t), true
		}
	}
	if last := len(c.Argv) - 1; w.on("protected-write") && !slices.Contains(args, "-t") && !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--target-directory") }) {
		if t, ok := w.protectedOperandIn(c, 1, last, true); ok {
			return deny("protected-write", "refused: mv of %s moves a protected start-up, key or system file away.", t), true
		}
	}
	return Verdict{}, false
}

// kill judges signals to every process, to init, or to every process of a user.
func (w *watch) kill(an *Analysis, c *SimpleCommand, name string, args []string) (Verdict, bool) {
	switch name {
	case "fuser":
		// fuser -k -m / kills every process using the file system of /.
		if hasFlag(args, "k", "kill") {
			for _, o := range operandsOf(args) {
				if n := w.norm(o); n == "/" || n == "~" || slices.Contains(w.cfg.ProtectedTrees, n) {
					return deny("kill-all", "refused: fuser -k on %s kills every process using it, the system's among them. Kill the process by its pid.", o), true
				}
			}
		}
	case "kill":
		return w.killTargets(an, c)
	case "skill":
		if slices.ContainsFunc(args, func(a string) bool { return a == "-u" || a == "--user" }) {
			return deny("kill-all", "refused: skill -u signals every process of a user. Kill the process by its pid."), true
		}
	case "pkill", "killall":
		if v, bad := killsEverything(name, args); bad {
			return v, true
		}
		for k, a := range args {
			if (a == "-P" || a == "--parent") && k+1 < len(args) && strings.TrimLeft(args[k+1], "0") == "1" {
				return deny("kill-all", "refused: %s -P 1 signals every child of init: the system's services.", name), true
			}
			// Every process of a user (pkill -u root) or every process at all.
			if (a == "-u" || a == "--user" || a == "-U" || a == "--uid") && k+1 < len(args) || strings.HasPrefix(a, "--user=") || a == "-e" && name == "killall" && len(args) == 1 {
				return deny("kill-all", "refused: %s %s signals every process of a user, this session's and the system's among them. Kill the process by its pid or its exact name.", name, strings.Join(args, " ")), true
			}
		}
	}
	return Verdict{}, false
}

// dd judges dd writing onto a device or protected file, and flags it reading one.
func (w *watch) dd(c *SimpleCommand, args []string) (Verdict, bool) {
	for k, a := range args {
		of, ok := strings.CutPrefix(a, "of=")
		if !ok {
			continue
		}
		if w.on("dd-device") && w.protectedFile(of) {
			return deny("dd-device", "refused: dd of=%s writes raw bytes onto a device or protected system file.", of), true
		}
		if c.Partial != nil && c.Partial[k+1] && w.on("unknown-operand") {
			return deny("unknown-operand", "refused: dd of=%s... writes to a file or device whose name cannot be known before the line runs (it could be a disk). Use a literal path, or ask the user to allow this exact line.", of), true
		}
	}
	if w.on("dd-raw") {
		for _, a := range args {
			if in, ok := strings.CutPrefix(a, "if="); ok && w.protectedFile(in) {
				return Verdict{Action: Flag, Rule: "dd-raw", Reason: fmt.Sprintf("dd reads raw bytes from %s, a device or protected file; check where they go before running it.", in)}, true
			}
		}
	}
	return Verdict{}, false
}

// unpacks judges archivers, copiers and patch writing a tree of files into a folder
// that holds start-up or system files: tar -x -C ~, unzip -d ~, cp -r dotfiles/. ~,
// and unpacking into the folder the command runs in (cd ~ && tar xf x.tar).
func (w *watch) unpacks(_ *Analysis, _ int, c *SimpleCommand, name string, args []string) (Verdict, bool) {
	if !w.on("protected-write") {
		return Verdict{}, false
	}
	if (name == "tar" || name == "bsdtar") && extracts(name, args) && (slices.Contains(args, "--absolute-names") || slices.ContainsFunc(args, func(a string) bool {
		return strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "P")
	})) {
		return deny("protected-write", "refused: %s -P extracts the archive's absolute paths as they are, anywhere, start-up and system files among them. Extract into a folder of the workspace without -P.", name), true
	}
	dir := extractInto(name, args)
	if dir == "" && w.dir != "" && extracts(name, args) {
		if n := w.norm(w.dir); n == "~" || n == "/" || slices.Contains(w.cfg.ProtectedTrees, n) && !tempFolder(n) {
			return deny("protected-write", "refused: %s unpacks into %s, where start-up or system files would be overwritten. Unpack into a folder of the workspace.", name, w.dir), true
		}
	}
	if dir != "" {
		n := w.norm(dir)
		if n == "~" || n == "/" || slices.Contains(w.cfg.ProtectedTrees, n) && !tempFolder(n) || w.protectedFile(n+"/x") || strings.HasPrefix(n, "~/") && w.containsProtected(n) {
			return deny("protected-write", "refused: %s writes a tree of files into %s, where start-up or system files would be overwritten. Extract or copy into a folder of the workspace.", name, dir), true
		}
	}
	if name == "git" {
		// A work tree named by --work-tree or GIT_WORK_TREE is where checkout, reset and
		// the rest write (the thirteenth red team: --work-tree=/etc/cron.d). A home
		// work tree (a dotfiles repository) is left to the policy, which asks for the
		// protected files in it.
		for _, d := range gitTreeWrites(WithGitEnv(append([]string{"git"}, args...), c.Env)[1:]) {
			if n := w.norm(d); n == "/" || slices.Contains(w.cfg.ProtectedTrees, n) && !tempFolder(n) && n != "~" || !strings.HasPrefix(n, "~") && w.protectedFile(n+"/x") {
				return deny("protected-write", "refused: git writes its work tree into %s, where system files would be overwritten. Use a work tree in the workspace.", d), true
			}
		}
	}
	return Verdict{}, false
}

// tempFolder reports the temporary folders: protected as trees (rm -rf /tmp), yet the
// place to unpack and copy scratch files into.
func tempFolder(n string) bool { return n == "/tmp" || n == "/var/tmp" || n == "/dev/shm" }

// writes judges the files a command writes by its arguments (tee FILE, cp SRC DEST,
// sed -i FILE, git config --global).
func (w *watch) writes(_ *Analysis, _ int, c *SimpleCommand, name string, args []string) (Verdict, bool) {
	if !w.on("protected-write") {
		return Verdict{}, false
	}
	const protected = "refused: %s writes to %s, a protected system, device or shell start-up file. Write inside the workspace instead."
	recursive := (name == "cp" || name == "rsync") && hasFlag(args, "rRa", "recursive")
	for _, t := range w.intoDirs(name, args) {
		if w.protectedFile(t) || recursive && w.containsProtected(t) {
			return deny("protected-write", protected, name, t), true
		}
	}
	if name == "rsync" {
		// --link-dest=DIR hard-links DIR's files into the copy: a write there is a
		// write of them (the thirteenth red team: --link-dest=$HOME).
		for k, a := range args {
			d := ""
			if v, ok := strings.CutPrefix(a, "--link-dest="); ok {
				d = v
			} else if a == "--link-dest" && k+1 < len(args) {
				d = args[k+1]
			}
			if n := w.norm(d); d != "" && (n == "~" || n == "/" || w.protectedFile(n) || w.containsProtected(n)) {
				return deny("protected-write", "refused: rsync --link-dest=%s hard-links start-up or system files into the copy, where a write changes them. Copy without --link-dest.", d), true
			}
		}
	}
	targets := writeTargets(name, args)
	if name == "git" {
		targets = append(targets, gitConfigWrites(gitExpandAlias(args))...) // git config --system, --global
	}
	replaces := name == "mv" || name == "ln" || name == "split" || name == "csplit"
	for _, t := range targets {
		if w.protectedFile(t) {
			return deny("protected-write", protected, name, t), true
		}
		if replaces && (w.containsProtected(t) || w.prefixOfProtected(strings.TrimSuffix(strings.TrimSuffix(t, "aa"), "00"))) {
			// mv x ~/.config replaces a folder of start-up files; split's PREFIX with
			// a suffix can spell one (split ... ~/.bashr writes ~/.bashrc).
			return deny("protected-write", protected, name, t), true
		}
		if strings.ContainsAny(t, "*?[") {
			for _, m := range w.globAbs(t) {
				if w.protectedFile(m) {
					return deny("protected-write", protected, name, t+" ("+m+")"), true
				}
			}
			if name == "split" || name == "csplit" || name == "curl" || name == "wget" {
				// The names it makes need not exist yet: any protected name the pattern
				// spells.
				n := w.norm(t)
				for _, pat := range w.cfg.ProtectedFiles {
					if !strings.ContainsAny(pat, "*?[") && match(n, pat) {
						return deny("protected-write", protected, name, t+" ("+pat+")"), true
					}
				}
			}
		}
	}
	if w.on("unknown-operand") && c.Partial != nil {
		for k, a := range c.Argv {
			if k > 0 && c.Partial[k] && slices.Contains(targets, a) {
				return deny("unknown-operand", "refused: %s writes to %s..., whose name cannot be known before the line runs (it could be a start-up or system file). Use a literal path, or ask the user to allow this exact line.", name, a), true
			}
		}
	}
	return Verdict{}, false
}

// lazyRegexp compiles a pattern on first use: compiled at package init, the watchdog's
// patterns cost every applet's start-up a couple of milliseconds, the bash applet's too.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
