// Package policy decides whether a side effect may happen: it holds the permission
// rules of every scope, the permission mode, the session's grants and a small watchdog,
// and turns a request (applet, capability, target) into a Decision. It does not import
// core (only core/shell, core/filelock and core/suggest), so core/gate can wire it into
// core's Gate interface without an import cycle.
//
// # Rules
//
// A rule is (permission, pattern, action). The permission is an applet id ("bash",
// "write", "read", ...), a capability ("fs.read", "fs.write", "shell.run",
// "net.fetch") or "*". The pattern's kind follows from the request it is matched
// against: a path for fs.* requests, a command for shell.run, a host for net.fetch.
// An empty pattern or "*" matches every target.
//
// Path patterns are gitignore-style globs (doublestar syntax: *, ?, **, [...], {a,b}),
// with these anchors:
//
//	/abs/path/**     absolute
//	~/notes/**       under the home directory
//	{workspace}/x    under a workspace root (same as ./x)
//	./x  src/*.go    containing a slash: relative to each workspace root
//	*.env  .git      no slash: a name at any depth, inside the workspace or not
//
// A trailing slash is allowed and ignored. As in gitignore, a pattern that matches a
// directory also matches everything below it ("secrets" covers secrets/a/b). Targets
// are cleaned (so ".." cannot walk around a rule) and matched both as written and with
// symlinks resolved; the stricter verdict of the two counts.
//
// Command patterns are words (shell quoting allowed). Each word is a glob where * and ?
// match any characters, "/" included. A final word "*" (or a ":*" suffix, as in
// "npm run test:*") matches zero or more further words, so "npm run test *" matches
// "npm run test -- -u" but never "npm run testall". The first word also matches the
// base name of a command given by absolute path (/bin/rm matches "rm"); deny and ask
// rules match the base name of any path (./rm too).
//
// Host patterns are "example.com", "*.example.com" (subdomains at any depth, not the
// apex), either with an optional ":port", or "*". A URL target is reduced to its host
// and port (the scheme's default port when none is given).
//
// # Bash lines
//
// A command line is split by the shell analyser into simple commands (chains, pipes,
// substitutions, process substitutions, wrappers such as sudo, env, xargs and sh -c
// unwrapped). Each simple command is decided on its own, each output redirection is
// decided as an fs.write of its target and each input redirection as an fs.read; the
// strictest verdict of all parts is the line's verdict. When the analyser is not sure
// of a line (computed command names, eval, ...), no allow rule applies to it, and a
// word that is not a literal could be anything: deny and ask rules treat it as matching.
//
// # Scopes and precedence
//
// Rules come from four scopes: the host manifest, the user config
// ($XDG_CONFIG_HOME/agentbox/config.json), the project config
// (<root>/.agentbox/config.json) and the session's grants. A request is decided so:
//
//  1. A matching manifest deny is final. Nothing else is consulted.
//  2. Mode read-only denies everything but fs.read; mode bypass allows everything
//     (the watchdog still runs; see Watchdog).
//  3. Among the matching rules of the manifest, user, session and (when the user config
//     lists the root in "trusted_roots") project scopes, the most specific wins. The total
//     order, compared key by key: an exact pattern (no wildcard) beats any wildcard; then
//     more literal characters of the pattern once anchored (a workspace-relative pattern
//     counts its root's characters); then applet id beats capability beats "*"; then the
//     stricter action (deny > ask > allow). Rules equal in all four keys have the same
//     action, so which one is reported is settled by scope, pattern and position only
//     to keep output stable: the order of rules in a file never changes a verdict.
//  4. No matching rule: the mode decides (see Mode).
//  5. An untrusted project's rules may only tighten: the strictest matching project
//     rule replaces the verdict when it is stricter.
//
// # Asking
//
// An ask verdict is resolved by the caller: a person who typed the command at a
// terminal has already said yes; an agent's call with a terminal reachable is asked on
// /dev/tty (package core/tty); a headless host (AGENTBOX_HEADLESS=1, or no terminal)
// gets a needs_input refusal whose text names the rule or mode that would allow the
// call (see NeedsInputText).
package policy
