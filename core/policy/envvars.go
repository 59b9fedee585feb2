package policy

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentbox/agentbox/core/shell"
)

// CapShellEnv is the capability of setting an environment variable that makes programs
// load or run other code (CodeLoadingEnv) for a command. Its rules name variables with
// a glob: {"permission": "shell.env", "pattern": "GIT_CONFIG_*", "action": "allow"}.
const CapShellEnv = "shell.env"

// CodeLoadingEnv is the one list of environment variables (globs over names) that make
// a program run or load code the command line does not show: git's config, hooks and
// helpers, the dynamic linker, interpreters' start-up files, compilers and package
// indexes. A call that sets one (bash's env, NAME=VALUE or export on the line) is
// decided by decideEnv. A config's watchdog section adds names ("code_env").
var CodeLoadingEnv = []string{
	// Every GIT_* variable but the harmless ones (gitHarmless): git reads dozens
	// (GIT_TEST_FSMONITOR runs a program, GIT_COMMON_DIR picks the config, GIT_TRACE*
	// append to any file), and new ones appear.
	"GIT_*",
	// agentbox's own: a command that calls agentbox must not choose its mode,
	// manifest or session.
	"AGENTBOX_*",
	"SSH_ASKPASS", "LESSOPEN", "LESSCLOSE",
	"LD_*", "DYLD_*", "BASH_ENV", "ENV", "PROMPT_COMMAND", "PS4", "SHELLOPTS", "BASHOPTS", "BASH_FUNC_*",
	"ZDOTDIR", "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONINSPECT", "PYTHONWARNINGS",
	"NODE_OPTIONS", "NODE_PATH", "NODE_REPL_EXTERNAL_MODULE",
	"PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB", "RUBYOPT", "RUBYLIB",
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
	"PHPRC", "PHP_INI_SCAN_DIR", "LUA_INIT", "LUA_INIT_*", "TCLLIBPATH",
	"RUSTC_WRAPPER", "CARGO_BUILD_RUSTC_WRAPPER", "NPM_CONFIG_*", "npm_config_*", "OPENSSL_CONF",
	// Where programs look for their config and for the programs they start: a HOME or
	// XDG_CONFIG_HOME the agent chose brings its own .gitconfig (core.fsmonitor), a PATH
	// its own git; editors and pagers are commands; gconv loads modules.
	"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "PATH", "GCONV_PATH", "EDITOR", "VISUAL", "PAGER", "MANPAGER",
	"SYSTEMD_PAGER", "EXINIT", "VIMINIT", "MYVIMRC", "GIT_OBJECT_DIRECTORY", "SUDO_ASKPASS", "BROWSER", "IFS",
	// A third red team's list: build tools' and package managers' option and config
	// variables that name programs, plugins or files of code.
	"GOFLAGS", "GOENV", "GOTOOLCHAIN", "PYTHONUSERBASE", "MAKEFILES", "MAKEFLAGS", "MFLAGS", "RUSTC",
	"RUSTC_WORKSPACE_WRAPPER", "CARGO_HOME", "CARGO_TARGET_*_RUNNER", "CLASSPATH", "MAVEN_OPTS", "GRADLE_OPTS",
	"SBT_OPTS", "ANT_OPTS", "GRADLE_USER_HOME", "KUBECONFIG", "AWS_CONFIG_FILE", "TF_CLI_CONFIG_FILE", "TF_CLI_ARGS*",
	"DOCKER_CONFIG", "PIP_CONFIG_FILE", "BUNDLE_GEMFILE", "GEM_HOME", "GEM_PATH", "R_PROFILE", "R_PROFILE_USER",
	"LUA_PATH", "LUA_CPATH", "HGRCPATH", "CURL_HOME", "WGETRC", "CLOUDSDK_CONFIG", "ANSIBLE_CONFIG", "HELM_PLUGINS",
	"EMACSLOADPATH", "OPENSSL_ENGINES", "LOCPATH", "GLIBC_TUNABLES", "SHELL", "CDPATH",
	// Compilers, their flags (-fplugin=x.so) and wrappers, and where packages come
	// from: an index or proxy the agent chose serves code the command then runs.
	"CC", "CXX", "CPP", "FC", "LD", "AR", "AS", "RANLIB", "STRIP", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS",
	"RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_*", "CARGO_REGISTRIES_*", "CGO_*FLAGS", "CMAKE_*_COMPILER_LAUNCHER",
	"CCACHE_PREFIX", "DISTCC_*", "MAKE", "PKG_CONFIG", "PKG_CONFIG_PATH", "GOPROXY", "GONOSUMDB", "GONOSUMCHECK",
	"GOINSECURE", "GOSUMDB", "GOPRIVATE", "GONOPROXY", "PIP_*", "UV_INDEX*", "UV_EXTRA_INDEX_URL", "UV_DEFAULT_INDEX",
	"POETRY_REPOSITORIES_*", "YARN_*", "BUNDLE_*", "DOCKER_HOST", "FCEDIT", "SUDO_EDITOR",
	// A fourth red team's list: tools' option variables that run programs (tar's
	// --checkpoint-action, rsync's and cvs's remote shell), toolchains and caches a
	// build takes programs from, interpreters' hooks, search paths for headers,
	// libraries and configs.
	"TAR_OPTIONS", "GZIP", "BZIP2", "XZ_OPT", "ZSTD_CLEVEL", "RSYNC_RSH", "RSYNC_CONNECT_PROG", "CVS_RSH", "SVN_SSH",
	"KUBE_EDITOR", "GOROOT", "GOCACHE", "GOMODCACHE", "GOVCS", "GOPATH", "GOBIN", "PYTHONBREAKPOINT",
	"PYTHONPYCACHEPREFIX", "PYTHONSAFEPATH", "DOTNET_STARTUP_HOOKS", "DOTNET_*", "COREHOST_TRACE*", "XDG_CONFIG_DIRS",
	"XDG_DATA_DIRS", "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "LIBRARY_PATH", "M4", "M4PATH", "CONFIG_SITE",
	"RUSTDOCFLAGS", "CARGO_TARGET_*", "CMAKE_TOOLCHAIN_FILE", "CMAKE_PREFIX_PATH", "RUSTUP_TOOLCHAIN", "RUSTUP_HOME",
	"GNUPGHOME", "COMPOSER_HOME", "PYENV_VERSION", "PYENV_ROOT", "RBENV_VERSION", "RBENV_ROOT", "NVM_DIR",
	"HOSTALIASES",
	"JAVA_HOME", "ANDROID_HOME", "PERL_MB_OPT", "PERL_MM_OPT", "PERL_LOCAL_LIB_ROOT", "GEM_SPEC_CACHE",
	"MYPYPATH", "PYTHONEXECUTABLE", "VIRTUAL_ENV", "CONDA_PREFIX", "DENO_DIR", "BUN_INSTALL",
	"ZDOTDIR", "INPUTRC", "TERMINFO", "TERMINFO_DIRS", "MAGIC", "GIT_TEMPLATE_DIR",
	// An eighth red team's: bash's own. A message catalog in TEXTDOMAINDIR turns
	// $"hello" into $(cmd), which bash expands; EXECIGNORE and GLOBIGNORE change which
	// program a name or a pattern runs; BASH_COMPAT how bash reads quotes; enable -f
	// finds builtins (shared objects) in BASH_LOADABLES_PATH.
	"TEXTDOMAIN", "TEXTDOMAINDIR", "EXECIGNORE", "GLOBIGNORE", "BASH_COMPAT", "BASH_LOADABLES_PATH",
}

// gitHarmless are the GIT_* variables that only set names, dates and prompts.
var gitHarmless = []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME",
	"GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE", "GIT_TERMINAL_PROMPT", "GIT_OPTIONAL_LOCKS", "GIT_FLUSH",
	"GIT_LFS_SKIP_SMUDGE", "GIT_MERGE_AUTOEDIT", "GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS",
	"GIT_NOGLOB_PATHSPECS", "GIT_ICASE_PATHSPECS", "GIT_PROGRESS_DELAY"}

// codeLoading reports whether name is in the list (or extra, from the configs).
func codeLoading(name string, extra []string) bool {
	if slices.Contains(gitHarmless, name) {
		return false
	}
	for _, l := range [][]string{CodeLoadingEnv, extra} {
		for _, pat := range l {
			if wildMatch(pat, name) {
				return true
			}
		}
	}
	return false
}

// envChecks are the checks for the code-loading variables a command sets: entries are
// NAME=VALUE, or NAME where the value is not known.
func (p *Policy) envChecks(base Check, entries []string) []Check {
	var out []Check
	slices.Sort(entries)
	for _, e := range entries {
		n, v, known := strings.Cut(e, "=")
		if n != "*" && (!codeLoading(n, p.CodeEnv) || known && searchPath[n] && p.systemPaths(v)) {
			continue
		}
		c := base
		c.Capability, c.kind = CapShellEnv, kindCommand
		c.Argv, c.Partial, c.Uncertain, c.opaque = []string{n}, nil, false, false
		c.Display = "env " + n
		out = append(out, c)
	}
	return out
}

// decideEnv decides a code-loading variable. A shell.env rule that matches it decides
// (from any scope; an untrusted project's can only tighten). Otherwise it is allowed
// where every command is (mode bypass, bash(*)): there it gives nothing the agent could
// not run directly, and PYTHONPATH=src pytest or CC=clang make is everyday work. Where
// a narrower rule or a person decides the command, a person must see it too: a rule
// that allows `git status` says nothing about the core.fsmonitor command a GIT_CONFIG_*
// variable plants. agentbox's own settings (AGENTBOX_*) are refused unless a rule
// names them: a command must not choose the mode, manifest or session of an agentbox
// it calls.
func (p *Policy) decideEnv(c *Check) Decision {
	name := c.Argv[0]
	if r := p.best(p.rules, c, func(r *Rule) bool { return r.Permission == CapShellEnv }); r != nil {
		d := Decision{Action: r.Action, Rule: r, Part: c.Display, Reason: fmt.Sprintf("rule %s", r)}
		if t := p.strictest(p.tighten, c); t != nil && t.Action > d.Action {
			d = Decision{Action: t.Action, Rule: t, Part: c.Display, Reason: fmt.Sprintf("rule %s (an untrusted project rule can only tighten)", t)}
		}
		return d
	}
	rule := fmt.Sprintf(`{"permission": %q, "pattern": %q, "action": "allow"}`, CapShellEnv, strings.ReplaceAll(name, `"`, ""))
	if name == "*" {
		return Decision{Action: Deny, Variable: name, Part: c.Display, Reason: "the line exports a variable whose name is computed at run time " +
			"(export $x=...), which could be one of agentbox's own settings or one that loads code; write the name literally"}
	}
	if name == shell.PinsVar {
		return Decision{Action: Deny, Variable: name, Part: c.Display, Reason: fmt.Sprintf(
			"the line closes or replaces file descriptor %d, which holds this agentbox's policy for any agentbox the command runs; "+
				"leave descriptor %d alone (and write {var}>&- closes with a literal number)", shell.PinsFD, shell.PinsFD)}
	}
	if strings.HasPrefix(name, "AGENTBOX_") {
		return Decision{Action: Deny, Variable: name, Part: c.Display, Reason: fmt.Sprintf(
			"env sets %s, one of agentbox's own settings, which a command must not choose for an agentbox it calls; "+
				"drop it from env, or have the user allow it with a rule in the user config or manifest: %s", name, rule)}
	}
	if reason, ok := p.allowsEveryCommand(c.Applet); ok {
		return Decision{Action: Allow, Variable: name, Part: c.Display, Reason: reason + ", so setting " + name + " gives nothing more"}
	}
	return Decision{Action: Ask, Variable: name, Part: c.Display, Reason: fmt.Sprintf(
		"env sets %s, which makes programs load or run code the command line does not show, and a rule that allows "+
			"the command does not cover it: a person must approve it. Drop it from env, or have the user allow it "+
			"with a rule in the user config or manifest: %s", name, rule)}
}

// allowsEveryCommand reports a policy under which the agent runs any command without
// a person: mode bypass, or an allow rule for every command (bash(*)) that no stricter
// rule narrows. It returns the reason.
func (p *Policy) allowsEveryCommand(applet string) (string, bool) {
	if p.Mode == ModeBypass {
		return "the permission mode is bypass", true
	}
	anyCommand := &Check{Applet: applet, Capability: CapShellRun, kind: kindCommand, opaque: true, Display: "any command"}
	r := p.best(p.rules, anyCommand, nil)
	if r == nil || r.Action != Allow {
		return "", false
	}
	if t := p.strictest(p.tighten, anyCommand); t != nil && t.Action > Allow {
		return "", false
	}
	return fmt.Sprintf("rule %s allows every command", r), true
}

// searchPath are the code-loading variables that are only folders to look in: set to
// folders the agent cannot write (env -i PATH=/usr/bin:/bin ls), they plant nothing.
var searchPath = map[string]bool{"PATH": true, "HOME": true, "XDG_CONFIG_HOME": true, "XDG_DATA_HOME": true, "GCONV_PATH": true}

// systemPaths reports whether every folder of a colon-separated list is absolute and
// outside what an agent writes: the workspace roots and the temporary folders.
func (p *Policy) systemPaths(list string) bool {
	for _, d := range strings.Split(list, ":") {
		if !filepath.IsAbs(d) {
			return false
		}
		d = filepath.Clean(d)
		if p.inside(d) || p.inside(resolveExisting(d)) {
			return false
		}
		for _, tmp := range []string{"/tmp", "/var/tmp", "/dev/shm"} {
			if _, ok := within(tmp, d); ok {
				return false
			}
		}
	}
	return true
}
