package applets

import (
	"strings"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/gate"
	"github.com/agentbox/agentbox/core/ignore"
	"github.com/agentbox/agentbox/core/walk"
)

// SearchGCLimit is the heap size at which ls, glob and grep let the collector run again
// after turning it off for speed (core/grep.PauseGC): large enough that a typical call
// never collects, small enough that a million-file tree stays within a few hundred MB.
const SearchGCLimit = 192 << 20

// walkBudget is the time budget of one ls, glob or grep call: the applet's own, or
// AGENTBOX_WALK_BUDGET (a Go duration such as "5s" or "500ms") when the host sets a
// valid positive one.
func walkBudget(env *core.Env, def time.Duration) time.Duration {
	if v := env.Getenv("AGENTBOX_WALK_BUDGET"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
	}
	return def
}

// walkOptions builds the one walker's options for ls, glob and grep, so they leave out
// the same things (read's and edit's did-you-mean use walk.SimilarPaths, with the
// default skip list): hidden entries unless asked, the
// always-skipped folders (walk.DefaultSkipDirs, or AGENTBOX_SKIP_DIRS) and whatever the
// ignore files say, unless respect is false, which turns both of those off (all but
// the version-control folders).
func walkOptions(env *core.Env, hidden, respect, follow bool, budget time.Duration) walk.Options {
	opt := walk.Options{
		IncludeHidden: hidden,
		NoIgnore:      !respect,
		SkipDirs:      walk.ParseSkipDirs(env.Getenv("AGENTBOX_SKIP_DIRS")),
		Follow:        follow,
		Budget:        walkBudget(env, budget),
		Ignore:        ignore.Options{Home: env.Getenv("HOME"), ConfigHome: env.Getenv("XDG_CONFIG_HOME")},
	}
	if !respect {
		opt.SkipDirs = walk.VCSDirs // repository metadata is never what a search wants
	}
	// Every file a walk visits is decided for reading: a read-denied file is left out
	// and counted, so neither its name nor its content reaches the result.
	if g, ok := env.Gate.(*gate.PolicyGate); ok {
		opt.Denied = g.ReadFilter(env)
	}
	// The root's real location is checked once it is open (a folder swapped for a
	// link out since its path was resolved), and everything below it is opened
	// beneath it (core/walk's tree.go).
	opt.Inside = func(real string) bool {
		_, err := env.WS.ResolveRead("/", real)
		return err == nil
	}
	if follow {
		// A followed link must not lead out of the workspace.
		opt.Confine = func(target string) bool {
			_, err := env.WS.Resolve("/", target)
			return err == nil
		}
	}
	return opt
}

// similarPaths are up to three readable files of the workspace whose names resemble
// the missing abs, for a not_found hint; denied files are never named.
func similarPaths(env *core.Env, abs string) []string {
	var denied func(string, bool) bool
	if g, ok := env.Gate.(*gate.PolicyGate); ok {
		denied = g.ReadFilter(env)
	}
	return walk.SimilarPaths(env.WS.Roots, abs, 3, denied)
}

// cancelled reports whether a walk's partial reason is the call's cancellation (a
// signal), which makes the result an interrupted one (core.Result.Interrupted).
func cancelled(partial string) bool { return strings.HasPrefix(partial, "cancelled") }
