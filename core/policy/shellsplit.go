package policy

import "github.com/agentbox/agentbox/core/shell"

// shellSplit is how the policy reads a command line: core/shell's Analyze (every simple command
// of a line, through chains, substitutions and wrappers), in the policy's terms. cwd and
// home are where the line runs, so a cd on the line moves the paths after it; exported
// names the variables of the environment it runs with (their values stay unknown to
// the rules), so a variable the line changes that is already exported (let HOME=1)
// reaches the commands after it.
func shellSplit(line, cwd, home string, getenv func(string) (string, bool)) (*Analysis, error) {
	// The environment's values are known: $XDG_CONFIG_HOME/agentbox/config.json is the
	// user config (red team: written in bypass, read as an unknown path).
	a, err := shell.AnalyzeIn(line, shell.Context{Dir: cwd, Home: home, Getenv: getenv})
	if err != nil {
		return nil, err
	}
	out := &Analysis{Uncertain: a.Uncertain, Commands: make([]SimpleCommand, 0, len(a.Commands)), NoCaseGlob: a.NoCaseGlob, Links: a.Links}
	for _, c := range a.Commands {
		sc := SimpleCommand{Argv: c.Argv, Context: c.Context, Partial: c.Partial, Env: c.Env, DirUnknown: c.DirUnknown, Typed: c.Typed, TypedPartial: c.TypedPartial}
		sc.Dir = c.Dir
		for _, r := range c.Redirects {
			sc.Redirects = append(sc.Redirects, Redirect{Op: r.Op, Target: r.Target, Partial: r.Partial})
		}
		// Files written through operands (tee, cp, sed -i, git config, ...) are decided
		// like the target of a redirection.
		argv := shell.WithGitEnv(c.Argv, c.Env)
		for _, t := range shell.WriteTargets(argv) {
			sc.Redirects = append(sc.Redirects, Redirect{Op: ">", Target: t, Partial: partialWord(c.Argv, c.Partial, t)})
		}
		// Folders written file by file (rm -r, find -delete, git clean): what is below
		// them now is decided as written too.
		for _, t := range shell.TreeWrites(argv) {
			sc.Redirects = append(sc.Redirects, Redirect{Op: ">", Target: t, Partial: partialWord(c.Argv, c.Partial, t), Tree: true})
		}
		for _, t := range shell.WorkTreeWrites(argv) {
			sc.Redirects = append(sc.Redirects, Redirect{Op: ">", Target: t, Partial: partialWord(c.Argv, c.Partial, t), Tree: true, WorkTree: true})
		}
		// Files the shell reads itself (source .env) are decided like < .env.
		for _, t := range shell.ReadTargets(c.Argv) {
			sc.Redirects = append(sc.Redirects, Redirect{Op: "<", Target: t, Partial: partialWord(c.Argv, c.Partial, t)})
		}
		out.Commands = append(out.Commands, sc)
		if len(c.Argv) == 0 {
			continue
		}
		if copied, ok := a.Copies[c.Argv[0]]; ok {
			// cp /usr/bin/touch ./t; ./t f runs touch: decided as touch too.
			twin := sc
			twin.Argv = append([]string{copied}, c.Argv[1:]...)
			out.Commands = append(out.Commands, twin)
		}
	}
	return out, nil
}

// partialWord reports whether the argument word t of argv is only a literal prefix.
func partialWord(argv []string, partial []bool, t string) bool {
	for i, a := range argv {
		if i < len(partial) && partial[i] && (a == t || a == "of="+t) {
			return true
		}
	}
	return false
}
