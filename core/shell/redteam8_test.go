package shell

import (
	"slices"
	"strings"
	"testing"
)

// The eighth red team of the gate (session 37): lines that ran another command than the
// analysis saw, each now read as bash reads it or refused as unknown.
func TestEighthRedTeam(t *testing.T) {
	unknown := []string{
		// ${a[k]:=v} assigns, BASH_CMDS and BASH_ALIASES included.
		`echo ${BASH_CMDS[ls]:=/usr/bin/rm}; ls f`,
		"echo \"${BASH_ALIASES[ls]:=rm -rf}\"\nls f",
		`r=x; echo ${!r:=rm}`,
		// Single quotes in a double-quoted ${x:-...} do not quote.
		`echo "${x:-'$(rm f)'}"`, `echo "${x:-$'\x24\x28rm f\x29'}"`, `x=1; echo "${x:+'$(rm f)'}"`,
		"echo \"${x:-'`rm f`'}\"", `echo "${y:-${x:-'$(rm f)'}}"`, "cat <<E\n${x:-'$(rm f)'}\nE",
		`echo $(( ${x:-'$(rm f)'} ))`, `a[${x:-'$(rm f)'}]=1`, `echo "${x:?'$(rm f)'}"`,
		// Options with their values attached.
		`a=ls; printf -va %s rm; $a f`, `a=ls; read -aa <<< rm; $a f`, `a=ls; read -ra a <<< rm; $a f`,
		`printf -vBASH_CMDS[ls] %s /bin/rm`,
		// An arithmetic assignment (it crashed the analysis: x was taken for a number).
		`x=ls; echo $((x=1)); $x f`,
	}
	for _, line := range unknown {
		a, _ := Analyze(line)
		if a == nil || len(a.Unknown) == 0 {
			t.Errorf("%q: not refused as unknown", line)
		}
	}
	// What each line runs, option values attached or not.
	runs := map[string]string{
		"mapfile -C'rm f' -c1 a <<< x":      "rm f",
		"hash -p/bin/rm ls; ls f":           "/bin/rm f",
		"env -iC/tmp rm f":                  "rm f",
		"echo x\nrm -rf f\necho \"unclosed": "rm -rf f", // bash runs the commands before the one it cannot parse
	}
	for line, want := range runs {
		a, _ := Analyze(line)
		var got []string
		for _, c := range a.Commands {
			got = append(got, strings.Join(c.Argv, " "))
		}
		if !slices.Contains(got, want) {
			t.Errorf("%q: commands %q, want %q among them", line, got, want)
		}
	}
	// Single quotes that quote: outside ${x:-...}, and in ${x/a/'...'} and ${x#'...'}.
	for _, line := range []string{`echo "${x/a/'$(rm f)'}"`, `echo "${x#'$(rm f)'}"`, `echo '$(rm f)'`, `echo "${x:-'plain'}"`} {
		if a, _ := Analyze(line); len(a.Unknown) > 0 {
			t.Errorf("%q: refused: %q", line, a.Unknown)
		}
	}
}

// A command's cd for what it runs (env -C, sudo -D) holds for a shell it starts too.
func TestWrapperDirForScripts(t *testing.T) {
	a, _ := AnalyzeIn(`env -C /tmp sh -c 'rm -rf x'`, Context{Dir: "/work"})
	for _, c := range a.Commands {
		if c.Argv[0] == "rm" && c.Dir != "/tmp" {
			t.Errorf("rm runs in %q, want /tmp", c.Dir)
		}
	}
}

func TestSplitOptions(t *testing.T) {
	for in, want := range map[string]string{
		"cp -vt/x a":                   "cp -v -t /x a",
		"cp --target-directory=/x a":   "cp --target-directory=/x a",
		"cp --target-dir=/x a":         "cp --target-directory=/x a",
		"cp --ta=/x a":                 "cp --target-directory=/x a",
		"cp --target-directory /x a":   "cp --target-directory /x a",
		"cp --su=.b a b":               "cp --suffix=.b a b",
		"cp --s=.b a b":                "cp --s=.b a b", // --suffix or --symbolic-link
		"cp --re a b":                  "cp --re a b",   // --recursive or --remove-destination
		"mv -t. a":                     "mv -t . a",
		"sed -ne'w f' x":               "sed -n -e w f x",
		"sed -i.bak -es/a/b/ x":        "sed -i.bak -e s/a/b/ x",
		"sed --expression=p x":         "sed --expression=p x",
		"sed --e=p x":                  "sed --expression=p x",
		"sed -i -e p x":                "sed -i -e p x",
		"sed -ie p x":                  "sed -ie p x", // GNU sed: -i with the suffix e
		"printf -vx %s y":              "printf -v x %s y",
		"printf --vx":                  "printf --vx",
		"read -ra x":                   "read -r -a x",
		"read -a":                      "read -a",
		"env -iC/tmp ls":               "env -i -C /tmp ls",
		"env --chdir=/x ls":            "env --chdir=/x ls",
		"env --ch=/x ls":               "env --chdir=/x ls",
		"cp -Q a b":                    "cp -Q a b", // an option cp does not have: left as typed
		"cp -- -t/x b":                 "cp -- -t/x b",
		"cp -t":                        "cp -t",
		"ls -t/x":                      "ls -t/x", // not a command of the table
		"patch -o/tmp/out -p1":         "patch -o /tmp/out -p 1",
		"install -m644 -t/x a":         "install -m 644 -t /x a",
		"install --mode=600 --owner=u": "install --mode=600 --owner=u",
		"hash -p/bin/rm ls":            "hash -p /bin/rm ls",
		"mapfile -C'x' -c1 a":          "mapfile -C x -c 1 a",
		"wait -pv":                     "wait -p v",
		"sort --outp /x a":             "sort --output /x a",
		"sort --o=/x a":                "sort --output=/x a",
		"rsync --log-fi=/x a b":        "rsync --log-file=/x a b",
		"rsync --remove-sou a b":       "rsync --remove-source-files a b",
		"tar --remove-f -cf x.tar a":   "tar --remove-files -c -f x.tar a",
		"tar -xf x.tar -C/x":           "tar -x -f x.tar -C /x",
		"tar --director=/x -xf t":      "tar --directory=/x -x -f t",
		"shuf -o/x a":                  "shuf -o /x a",
		"wget --output-d=/x u":         "wget --output-document=/x u",
		"wget --append-out=/x u":       "wget --append-output=/x u",
	} {
		var argv []word
		for _, f := range strings.Fields(strings.NewReplacer("'", "").Replace(in)) {
			argv = append(argv, word{s: f, known: true})
		}
		if in == "sed -ne'w f' x" {
			argv = []word{{s: "sed", known: true}, {s: "-new f", known: true}, {s: "x", known: true}}
		}
		var got []string
		for _, w := range splitOptions(argv) {
			got = append(got, w.s)
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("%s: %q, want %q", in, g, want)
		}
	}
}

func TestIsGlob(t *testing.T) {
	for s, want := range map[string]bool{"[": false, "]": false, "[[": false, "a": false, "*": true, "a?": true, "[ab]": true, "x[": false, "[a": false, "a]": false} {
		if IsGlob(s) != want {
			t.Errorf("IsGlob(%q) = %v", s, !want)
		}
	}
}

// The ninth red team (session 37): expansions the analysis had taken as written ($!,
// $'\0', /proc/$$/), globstar, here-document delimiters the parser rejects, long
// option abbreviations, compressors, unpackers, patch fed a diff, coproc NAME.
func TestNinthRedTeam(t *testing.T) {
	home := "/home/u"
	refused := []string{
		`echo x >> ~/.bashrc$!`, `rm -rf ~/$!`, "echo x >> ~/.bashrc$'\\0'", "rm -rf /home/u$'\\0x'",
		`echo x >> /proc/$$/root/home/u/.bashrc`, `rm -rf /proc/$$/root/*`,
		`shopt -s globstar; echo x >> ~/**/.bashrc`, `shopt -s globstar; rm -f ~/**/.profile`,
		"cat <<$x\n$(rm -rf ~)\n$x", "cat << EOF\\\n\n$(rm -rf ~)\nEOF\\",
		`sort --outp=$HOME/.bashrc x`, `sort --o=$HOME/.bashrc x`, `sed -n --e="w $HOME/.bashrc" x`,
		`shuf -o$HOME/.profile x`, `tar -x --director=$HOME -f x.tar`, `tar -x -f x.tar -C$HOME`,
		`wget --output-d=$HOME/.bashrc u`, `wget --append-out=$HOME/.bashrc u`, `rsync --log-fi=$HOME/.bashrc a b`,
		`rsync --log-file=$HOME/.bashrc a b`, `rsync -r --remove-sou ~/ /x/`, `tar -cf /tmp/x.tar --remove-f ~`,
		`tar -cf /tmp/x.tar --remove-files ~/.bashrc`, `gzip -r ~`, `zstd -r --rm ~`, `gunzip -f ~/.bashrc.gz`,
		`gzip ~/.bashrc`, `xz -d ~/.profile.xz`,
		"patch -p0 <<'E'\n--- ~/.bashrc\n+++ ~/.bashrc\nE",
		"printf -- '--- x/.bashrc\\n+++ x/.bashrc\\n' | patch -p1 -d ~",
	}
	for _, line := range refused {
		a, _ := AnalyzeIn(line, Context{Home: home, Dir: "/work"})
		if v := Check(a, Config{}); v.Action != Deny {
			t.Errorf("%q: %s (%s), want deny", line, v.Action, v.Reason)
		}
	}
	// What stays ordinary.
	for _, line := range []string{`echo x > /tmp/log.$$`, `sleep 1 & wait $!`, `gzip build.log`, `gunzip data.tar.gz`,
		`gzip -c notes.txt > /tmp/n.gz`, `sort -o out.txt in.txt`, `ls **/*.go`, `tar -czf /tmp/x.tgz --remove-files build/`} {
		a, _ := AnalyzeIn(line, Context{Home: home, Dir: "/work"})
		if v := Check(a, Config{}); v.Action == Deny {
			t.Errorf("%q: refused (%s)", line, v.Reason)
		}
	}
	// coproc NAME assigns NAME.
	if a, _ := Analyze(`coproc BASH_CMDS { true; }; ls`); len(a.Unknown) == 0 {
		t.Error("coproc BASH_CMDS: not refused")
	}
}

// The tenth red team (session 37): here-documents bash ends elsewhere than the parser,
// time --, git's and su's abbreviated options, strace -o |CMD, ed's w !CMD, awk's joined
// strings, descriptors reopened for writing, backups, cp --parents and -rs,
// checkout-index --prefix, popd's OLDPWD.
func TestTenthRedTeam(t *testing.T) {
	home := "/home/u"
	refused := []string{
		"cat <<EOF\nEO\\\nF\nrm -rf ~\nEOF", "echo `cat <<EOF`\nrm -rf ~\nEOF", "cat <<EOF\n$(echo '\nEOF\nrm -rf ~\n')\nEOF",
		"echo \"$(cat <<'EOF'\nEOF)\"\nrm -rf ~\nEOF\n)\"",
		`time -- rm -rf ~`, `git rebase --ex "rm -rf ~" HEAD~1`, `git grep --open="rm -rf ~" x`, `git submodule foreach --quiet "rm -rf ~"`,
		`su --comm="rm -rf ~"`, `script -q /dev/null --comm="rm -rf ~"`, `strace -o "|rm -rf ~" true`,
		"ed -s x <<<'w !rm -rf ~'", "ed -s x <<<'r !rm -rf ~'", `awk 'BEGIN{system("r" "m -rf ~")}'`, `awk '{system(x)}' f`,
		`exec 7<~/.bashrc; echo x >> /proc/self/fd/7`, `echo x 0<~/.bashrc >>/dev/stdin`, `tee -a /dev/stdin < ~/.bashrc`,
		`sed -n "w /dev/fd/3" x 3<~/.bashrc`, `cp -b -S rc x ~/.bash`, `cp --suf=rc -b x ~/.bash`,
		`pushd ~ >/dev/null; popd >/dev/null; rm -rf ~-`,
	}
	for _, line := range refused {
		a, _ := AnalyzeIn(line, Context{Home: home, Dir: "/work"})
		if v := Check(a, Config{}); v.Action != Deny {
			t.Errorf("%q: %s (%s), want deny", line, v.Action, v.Reason)
		}
	}
	for _, line := range []string{"git commit -m \"$(cat <<'EOF'\nfix: a thing\n\nbody\nEOF\n)\"", "cat <<EOF > notes.txt\nhello $USER\nEOF",
		`awk '{system("echo " $1)}' notes.txt`, `echo hi > /dev/stderr`, `cp -b a.txt b.txt`, `git grep --count foo`, `ed -s x <<<'1,$w out.txt'`} {
		a, _ := AnalyzeIn(line, Context{Home: home, Dir: "/work"})
		if v := Check(a, Config{}); v.Action == Deny {
			t.Errorf("%q: refused (%s)", line, v.Reason)
		}
	}
	// What the policy decides by tree: cp -rs links every file below its source,
	// checkout-index --prefix writes below it, cp --parents below its destination.
	for argv, want := range map[string]string{"cp -rs /home/u hh": "/home/u", "git checkout-index -a --prefix=/home/u/": "/home/u"} {
		if got := TreeWrites(strings.Fields(argv)); !slices.Contains(got, want) {
			t.Errorf("TreeWrites(%s) = %q, want %q among them", argv, got, want)
		}
	}
	if got := WriteTargets(strings.Fields("cp --parents .git/config /work")); !slices.Contains(got, "/work/.git/config") {
		t.Errorf("cp --parents: %q", got)
	}
}

// The tenth red team's second part: vim's clustered flags and :w !sh, curl's
// --output-dir and %output{}, split's names, command-valued options of tar, sort and
// git's merge drivers.
func TestTenthRedTeamSecondPart(t *testing.T) {
	for _, line := range []string{
		`ex -sc "w! ~/.bashrc|q" x`, `vim -esc "!rm -rf ~" -c "q!"`, `vim -es -c "norm irm -f x" -c "w !sh" -c "q!"`,
		`curl -s --output-dir ~ -o .bashrc https://e.com`, `curl -w "%output{~/.bashrc}x" https://e.com`,
		`split -l1 -a1 --additional-suffix=c s ~/.bash`, `tar --rsh-command="rm -rf ~" -cf h:zz x`,
		`sort --compress-program="rm -rf ~" big`, `git -c merge.x.driver="rm -rf ~" merge b`,
		`git -c core.alternateRefsCommand="rm -rf ~" fetch`,
	} {
		a, _ := AnalyzeIn(line, Context{Home: "/home/u", Dir: "/work"})
		if v := Check(a, Config{}); v.Action != Deny {
			t.Errorf("%q: %s (%s), want deny", line, v.Action, v.Reason)
		}
	}
	for _, line := range []string{`vim -es -c "w !wc -l" -c "q!" f`, `curl --output-dir dl -o page.html https://e.com`, `split -l 100 big.txt part-`, `sort -u x`} {
		a, _ := AnalyzeIn(line, Context{Home: "/home/u", Dir: "/work"})
		if v := Check(a, Config{}); v.Action == Deny {
			t.Errorf("%q: refused (%s)", line, v.Reason)
		}
	}
}

// The eleventh red team (session 37): programs that run a command the line names
// (split --filter, logsave, perf, hyperfine, npm exec -c, go -exec, gcc -wrapper,
// apt-get and dpkg hooks, socat, lftp, run-parts), git plumbing that writes the files
// it is given, less's log file, scp into a folder, interpreters' copies and moves,
// server-chosen names, gunzip -N, git apply --unsafe-paths.
func TestEleventhRedTeam(t *testing.T) {
	for _, line := range []string{
		`split --filter='rm -rf ~' in`, `logsave /dev/null rm -rf ~`, `perf stat -o /dev/null rm -rf ~`, `hyperfine --runs 1 'rm -rf ~'`,
		`npm exec -c "rm -rf ~"`, `go run -exec "rm -rf" x.go ~`, `gcc -wrapper rm,-rf,/home/u x.c`,
		`apt-get -o APT::Update::Pre-Invoke::="rm -rf ~" update`, `dpkg --pre-invoke="rm -rf ~" -i x.deb`, `socat - EXEC:"rm -rf ~"`,
		`lftp -c "!rm -rf ~"`, `run-parts d`,
		`git merge-file --union ~/.bashrc /dev/null pay`, `git mailinfo ~/.bashrc p < m`, `git interpret-trailers --in-place --trailer x ~/.bashrc`,
		`git fast-import --export-marks=/home/u/.bashrc`, `git credential-store --file ~/.bashrc store`,
		`printf x | less -F -O ~/.bashrc`,
		`python3 -c 'import shutil; shutil.copy("in", "/home/u/.bashrc")'`, `python3 -c 'import shutil; shutil.move("/home/u", "/tmp/x")'`,
		`perl -MFile::Path=remove_tree -e "remove_tree(q(/home/u))"`, `node -e 'require("fs").copyFileSync("in", "/home/u/.bashrc")'`,
		`python3 -c 'import pathlib; pathlib.Path("/home/u/.bashrc").write_text("x")'`,
		`cd ~ && curl -sOJ http://127.0.0.1:1/x`, `cd ~ && wget --content-disposition http://x/y`,
		"printf -- '--- /home/u/.bashrc\\n+++ /home/u/.bashrc\\n' > x.diff && git apply --unsafe-paths x.diff",
	} {
		a, _ := AnalyzeIn(line, Context{Home: "/home/u", Dir: "/work"})
		if v := Check(a, Config{}); v.Action != Deny {
			t.Errorf("%q: %s (%s), want deny", line, v.Action, v.Reason)
		}
	}
	for _, line := range []string{`go test ./...`, `hyperfine "sleep 0.1"`, `perf stat ls`, `git merge-file -p a b c`, `less README.md`,
		`scp a.txt host:/tmp/`, `python3 -c 'import shutil; shutil.copy("a.txt", "b.txt")'`, `curl -OJ https://e.com/f`, `git apply fix.diff`,
		`git commit --file=msg.txt`} {
		a, _ := AnalyzeIn(line, Context{Home: "/home/u", Dir: "/work"})
		if v := Check(a, Config{}); v.Action == Deny {
			t.Errorf("%q: refused (%s)", line, v.Reason)
		}
	}
	home := t.TempDir() // scp into a folder that is there: the file keeps its name
	if a, _ := AnalyzeIn("scp .bashrc "+home, Context{Home: home, Dir: "/work"}); Check(a, Config{}).Action != Deny {
		t.Error("scp .bashrc ~: not refused")
	}
	for argv, want := range map[string]string{"git worktree add --detach /home/u/.ssh": "/home/u/.ssh",
		"git worktree add -b fix /home/u/.ssh main": "/home/u/.ssh", "git worktree move wt /home/u/.ssh": "/home/u/.ssh"} {
		if got := TreeWrites(strings.Fields(argv)); !slices.Equal(got, []string{want}) {
			t.Errorf("TreeWrites(%s) = %q, want %q", argv, got, want)
		}
	}
	if got := WriteTargets(strings.Fields("git init --separate-git-dir=gd")); !slices.Contains(got, ".git") {
		t.Errorf("init --separate-git-dir: %q", got)
	}
}

// The twelfth red team (session 37): sqlite3's file writers and .read, set -o history,
// vim's writefile() and friends, variables and options that name a log file, links
// made by interpreters, npx/rustup/pyenv runners, gdb.
func TestTwelfthRedTeam(t *testing.T) {
	for _, line := range []string{
		`sqlite3 :memory: ".output /home/u/.bashrc" "select 1"`, `sqlite3 :memory: "vacuum into '/home/u/.bashrc'"`,
		`sqlite3 ~/.bashrc "create table t(x)"`, "printf '.shell rm -rf ~\\n' > g; sqlite3 :memory: '.read g'",
		"HISTFILE=~/.bashrc; set -o history\nfalse && touch x",
		`vim -u NONE -es -c "call writefile([\"x\"], expand(\"~/.bashrc\"))" -c q`, `vim -es -c "call delete(expand(\"~\"), \"rf\")" -c q`,
		`vim -es -c "mksession! ~/.bashrc" -c q`, `vim -es -c "redir > ~/.bashrc" -c q`,
		`GIT_TRACE=/home/u/.bashrc git status`, `export GIT_TRACE=/home/u/.profile; git status`, `ssh -E ~/.bashrc host`,
		`ssh -o UserKnownHostsFile=/home/u/.bashrc host`,
		`python3 -c "import os; os.symlink('/home/u/.bashrc', 'P')"`,
		`npx rm -rf ~`, `rustup run stable rm -rf ~`, `pyenv exec rm -rf ~`,
		`gdb -batch -ex "file /bin/rm" -ex "run x"`, `gdb -batch -ex "set exec-wrapper rm -rf ~" -ex r true`, `gdb -batch -x cmds.gdb`,
	} {
		a, _ := AnalyzeIn(line, Context{Home: "/home/u", Dir: "/work"})
		if v := Check(a, Config{}); v.Action != Deny {
			t.Errorf("%q: %s (%s), want deny", line, v.Action, v.Reason)
		}
	}
	for _, line := range []string{`sqlite3 app.db "select * from t"`, `sqlite3 :memory: ".output out.txt" "select 1"`, `set -o pipefail; echo x`,
		`vim -es -c "%s/a/b/g" -c wq f.txt`, `GIT_TRACE=1 git status`, `npx prettier --write .`, `gdb -batch -ex run -ex bt ./app`} {
		a, _ := AnalyzeIn(line, Context{Home: "/home/u", Dir: "/work"})
		if v := Check(a, Config{}); v.Action == Deny {
			t.Errorf("%q: refused (%s)", line, v.Reason)
		}
	}
}
