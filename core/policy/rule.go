package policy

import (
	"errors"
	"fmt"
	"github.com/agentbox/agentbox/core/shell"
	fuzzy "github.com/agentbox/agentbox/core/suggest"
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/google/shlex"
)

// Rule is one permission rule, compiled, with where it came from.
type Rule struct {
	Permission string `json:"permission"`
	Pattern    string `json:"pattern,omitempty"`
	Action     Action `json:"action"`
	Scope      Scope  `json:"scope,omitempty"`
	File       string `json:"file,omitempty"`  // the config file; empty for grants and code
	Where      string `json:"where,omitempty"` // position in the file: rules[3], allow[0]
	Grant      string `json:"grant,omitempty"` // grant id, for session grants
	Once       bool   `json:"once,omitempty"`  // a once grant, consumed by the call it allows
	// Shallow path rules match the path itself only, not what is below it (a
	// non-recursive grant).
	Shallow bool `json:"shallow,omitempty"`
	// Prompted: a grant a person gave by answering a prompt ("allow for this session")
	// rather than by naming the target (a rule, agentbox permit). It allows the calls
	// the prompt asked about, but does not name a host for fetch's private addresses:
	// the prompt did not say where the name leads, nor will it lead there tomorrow.
	Prompted bool `json:"prompted,omitempty"`

	permRank int // 2 applet, 1 capability, 0 "*"
	any      bool
	path     *pathPattern
	cmd      *cmdPattern
	host     *hostPattern
}

// String names the rule for a person or a model: action, permission, pattern and origin.
func (r *Rule) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.Action, r.Permission)
	if r.Pattern != "" {
		fmt.Fprintf(&b, " %q", r.Pattern)
	}
	b.WriteString(" (")
	b.WriteString(r.Origin())
	b.WriteString(")")
	return b.String()
}

// Origin is the rule's scope and position: "user config /x/config.json rules[2]".
func (r *Rule) Origin() string {
	switch {
	case r.Grant != "":
		kind := "session"
		if r.Once {
			kind = "once"
		}
		return fmt.Sprintf("%s grant %s", kind, r.Grant)
	case r.File != "":
		return fmt.Sprintf("%s config %s %s", r.Scope, r.File, r.Where)
	case r.Where != "":
		return fmt.Sprintf("%s %s", r.Scope, r.Where)
	}
	return string(r.Scope)
}

// The applets a rule may name, and the kind of target each one's pattern matches, are
// the applet table's (core.Spec.Target), installed by UseApplets when agentbox starts:
// the policy keeps no list of its own, so an applet added to the table can be named by
// a rule at once.
var registry atomic.Pointer[map[string]kind]

// Target kinds an applet declares (core.Spec.Target).
const (
	TargetPath    = "path"
	TargetCommand = "command"
	TargetHost    = "host"
	TargetNone    = "" // the applet takes no pattern: only "" or "*"
)

// UseApplets installs the applet table: each applet id with its target kind.
func UseApplets(targets map[string]string) {
	m := make(map[string]kind, len(targets))
	for name, t := range targets {
		switch t {
		case TargetPath:
			m[name] = kindPath
		case TargetCommand:
			m[name] = kindCommand
		case TargetHost:
			m[name] = kindHost
		default:
			m[name] = kindNone
		}
	}
	registry.Store(&m)
}

// appletKind is an applet's target kind, and whether the table has it.
func appletKind(name string) (kind, bool) {
	m := registry.Load()
	if m == nil {
		return kindNone, false
	}
	k, ok := (*m)[name]
	return k, ok
}

var capKinds = map[string]kind{
	CapFSRead: kindPath, CapFSWrite: kindPath, CapShellRun: kindCommand, CapNetFetch: kindHost,
	CapShellEnv: kindCommand,
}

// coversEveryApplet reports whether a rule naming applet speaks for every applet's
// requests of capability: read(**/.env) is about reading .env, by read, grep, edit's and
// patch's reads alike, and write(...) and edit(...) are about changing files by any
// applet. Otherwise denying read(**/.env) would still let grep print it.
func coversEveryApplet(applet, capability string) bool {
	switch applet {
	case "read":
		return capability == CapFSRead
	case "write", "edit":
		return capability == CapFSWrite
	}
	return false
}

// Env is what compiling a rule needs from the outside world.
type Env struct {
	Home  string   // for ~/ anchors
	Roots []string // workspace roots, absolute and cleaned
	// ReadRoots are read like the workspace (the session's sidecar folders): a read
	// there is inside; a write is not.
	ReadRoots []string
	// Aliases are the subcommand aliases tools read from their config files (git's
	// [alias] in ~/.gitconfig and the repository's .git/config, cargo's [alias] in
	// .cargo/config.toml), by tool: a deny rule on git push holds for git pp when
	// pp = push. A function, called only when a command is decided, so that other
	// calls never read those files. Nil: none known.
	Aliases func() map[string]map[string]string
}

func (e Env) aliases() map[string]map[string]string {
	if e.Aliases == nil {
		return nil
	}
	return e.Aliases()
}

// Compile checks and compiles one rule; the error says what is wrong with it.
func Compile(permission, pattern string, action Action) (*Rule, error) {
	r := &Rule{Permission: permission, Pattern: pattern, Action: action}
	if action < Allow || action > Deny {
		return nil, errors.New(`action must be "allow", "ask" or "deny"`)
	}
	var kinds []kind
	switch {
	case permission == "*":
		r.permRank = 0
		kinds = []kind{kindPath, kindCommand, kindHost}
	case capKinds[permission] != kindNone:
		r.permRank = 1
		kinds = []kind{capKinds[permission]}
	case permission == CapAgentSpawn:
		r.permRank = 1
		kinds = []kind{kindNone}
	default:
		k, ok := appletKind(permission)
		if !ok {
			return nil, unknownPermission(permission)
		}
		r.permRank = 2
		kinds = []kind{k}
	}
	p := strings.TrimSpace(pattern)
	if p == "" || p == "*" {
		r.any = true
		return r, nil
	}
	var errs []string
	for _, k := range kinds {
		var err error
		switch k {
		case kindPath:
			r.path, err = compilePath(p)
		case kindCommand:
			r.cmd, err = compileCommand(p)
		case kindHost:
			r.host, err = compileHost(p)
		case kindNone:
			err = fmt.Errorf("applet %q takes no pattern; use \"*\" or leave the pattern out", permission)
		}
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	if r.path == nil && r.cmd == nil && r.host == nil {
		return nil, errors.New(strings.Join(errs, "; "))
	}
	return r, nil
}

func unknownPermission(p string) error {
	names := []string{"*", CapFSRead, CapFSWrite, CapShellRun, CapNetFetch, CapAgentSpawn}
	if m := registry.Load(); m != nil {
		for a := range *m {
			names = append(names, a)
		}
	}
	slices.Sort(names)
	best, bestD := "", 3
	for _, n := range names {
		if d := fuzzy.EditDistance(p, n); d < bestD {
			best, bestD = n, d
		}
	}
	hint := ""
	if best != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", best)
	}
	return fmt.Errorf("unknown permission %q%s; a permission is an applet id, a capability (fs.read, fs.write, shell.run, net.fetch, agent.spawn) or \"*\"", p, hint)
}

// match reports whether the rule applies to the check, and how specifically. A
// "maybe" match (a word the analyser could not resolve) counts only for deny and ask.
func (r *Rule) match(c *Check, env *Env) (ok bool, exact bool, literal int) {
	switch {
	case r.Permission == "*":
	case r.permRank == 1:
		if c.Capability != r.Permission {
			return false, false, 0
		}
	default:
		if c.Applet != r.Permission && !coversEveryApplet(r.Permission, c.Capability) {
			return false, false, 0
		}
	}
	if c.Uncertain && r.Action == Allow {
		// An unsure analysis never yields allow through a pattern.
		return false, false, 0
	}
	if r.any {
		return true, false, 0
	}
	switch c.kind {
	case kindPath:
		if r.path != nil && c.Path == "" {
			return r.Action != Allow, false, 0 // unknown target: it could be this one
		}
		if r.path != nil {
			ok, lit := r.path.match(c.Path, env, r.Shallow)
			return ok, r.path.exact, lit
		}
	case kindCommand:
		if r.cmd != nil {
			res := maybe
			if !c.opaque {
				res = r.cmd.match(c.Argv, c.Partial, r.Action == Allow)
				// A deny or ask rule sees through global options (git -C x push); an
				// allow rule does not, since they can change what the command runs
				// (git -c core.fsmonitor=...).
				if res != sure && r.Action != Allow {
					for _, v := range withoutGlobalOptions(c.Argv, c.Partial, env.aliases()) {
						res = max(res, r.cmd.match(v.argv, v.partial, false))
					}
				}
			}
			if res == sure || res == maybe && r.Action != Allow {
				return true, r.cmd.exact, r.cmd.literal
			}
		}
	case kindHost:
		if r.host != nil {
			res := r.host.match(c.Host, c.Port)
			if res == sure || res == maybe && r.Action != Allow {
				return true, r.host.exact, r.host.literal
			}
		}
	}
	return false, false, 0
}

// ---- paths

type anchor uint8

const (
	anchorAbs anchor = iota
	anchorWorkspace
	anchorHome
	anchorAnywhere
)

type pathPattern struct {
	anchor  anchor
	glob    string // relative to the anchor (without a leading slash), or "**/x"
	exact   bool
	literal int
}

func compilePath(p string) (*pathPattern, error) {
	if strings.HasPrefix(p, "!") {
		return nil, errors.New("negated path patterns (\"!x\") are not supported: write a rule with the opposite action instead")
	}
	if strings.ContainsRune(p, 0) {
		return nil, errors.New("path pattern contains a NUL byte")
	}
	pp := &pathPattern{}
	switch {
	case strings.HasPrefix(p, "{workspace}"):
		pp.anchor, p = anchorWorkspace, strings.TrimPrefix(p, "{workspace}")
		if p != "" && p[0] != '/' {
			return nil, errors.New("{workspace} must be followed by / or end the pattern")
		}
	case strings.HasPrefix(p, "{home}"):
		pp.anchor, p = anchorHome, strings.TrimPrefix(p, "{home}")
		if p != "" && p[0] != '/' {
			return nil, errors.New("{home} must be followed by / or end the pattern")
		}
	case strings.HasPrefix(p, "{"):
		if i := strings.IndexByte(p, '}'); i > 0 && !strings.ContainsAny(p[:i], ",/") {
			return nil, fmt.Errorf("undefined variable %s in path pattern; the variables are {workspace} and {home}", p[:i+1])
		}
		pp.anchor = anchorWorkspace
		if !strings.Contains(strings.TrimSuffix(p, "/"), "/") {
			pp.anchor = anchorAnywhere
		}
	case p == "~" || strings.HasPrefix(p, "~/"):
		pp.anchor, p = anchorHome, p[1:]
	case strings.HasPrefix(p, "~"):
		return nil, errors.New("~user is not supported in path patterns; write ~/ for your home or an absolute path")
	case strings.HasPrefix(p, "/"):
		pp.anchor = anchorAbs
	case p == "." || strings.HasPrefix(p, "./"):
		pp.anchor, p = anchorWorkspace, p[1:]
	case strings.Contains(strings.TrimSuffix(p, "/"), "/"):
		pp.anchor = anchorWorkspace
	default:
		pp.anchor = anchorAnywhere
	}
	p = strings.Trim(p, "/")
	if p != "" {
		if strings.Contains(p, "//") {
			return nil, errors.New("path pattern has an empty segment (//)")
		}
		for _, seg := range strings.Split(p, "/") {
			if seg == "." || seg == ".." {
				return nil, fmt.Errorf("path pattern has a %q segment; write the path without . and .. segments", seg)
			}
		}
	}
	if pp.anchor == anchorAnywhere {
		p = "**/" + p
	}
	if !doublestar.ValidatePattern(p) {
		return nil, fmt.Errorf("%q is not a valid glob (check [ ] and { } pairs and escapes)", p)
	}
	pp.glob = p
	pp.exact = !strings.ContainsAny(p, `*?[{\`)
	pp.literal = literalLen(p)
	return pp, nil
}

func literalLen(p string) int {
	n := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '*', '?', '[', ']', '{', '}', '\\':
		default:
			n++
		}
	}
	return n
}

// match matches abs (cleaned, absolute) and every ancestor directory of it.
func (pp *pathPattern) match(abs string, env *Env, shallow bool) (bool, int) {
	var bases []string
	switch pp.anchor {
	case anchorAbs, anchorAnywhere:
		bases = []string{"/"}
	case anchorHome:
		if env.Home == "" {
			return false, 0
		}
		bases = []string{env.Home}
	case anchorWorkspace:
		bases = env.Roots
	}
	for _, base := range bases {
		rel, ok := within(base, abs)
		if !ok {
			continue
		}
		for cand := rel; ; {
			if pp.glob == "" && cand == "" || pp.glob != "" && matchGlob(pp.glob, cand) {
				lit := pp.literal
				if pp.anchor != anchorAnywhere {
					lit += len(base)
				}
				return true, lit
			}
			if cand == "" || shallow {
				break
			}
			cand = path.Dir(cand)
			if cand == "." {
				cand = ""
			}
		}
		if pp.anchor == anchorWorkspace && strings.HasPrefix(pp.glob, "**/") {
			// "**/.env" is any .env on the way: the root's own folders count too,
			// so a root that is (or is inside) such a folder, a narrower --root or an
			// MCP client's root, does not put what is in it out of the rule's reach.
			for cand := strings.TrimPrefix(path.Dir(abs), "/"); cand != "" && cand != "."; cand = path.Dir(cand) {
				if len(cand)+1 <= len(base) && matchGlob(pp.glob, cand) {
					return true, pp.literal + len(base)
				}
			}
		}
	}
	return false, 0
}

func matchGlob(glob, name string) bool {
	if name == "" {
		return false
	}
	ok, err := doublestar.Match(glob, name)
	return ok && err == nil
}

// within returns abs relative to base ("" for base itself) when abs is base or below it.
// Sibling prefixes (/w/proj vs /w/project) are not within.
func within(base, abs string) (string, bool) {
	if base == "/" {
		return strings.TrimPrefix(abs, "/"), strings.HasPrefix(abs, "/")
	}
	if abs == base {
		return "", true
	}
	if strings.HasPrefix(abs, base) && abs[len(base)] == '/' {
		return abs[len(base)+1:], true
	}
	return "", false
}

// ---- commands

type cmdPattern struct {
	words   []string
	prefix  bool // a final "*": any further words
	exact   bool
	literal int
}

func compileCommand(p string) (*cmdPattern, error) {
	words, err := shlex.Split(p)
	if err != nil {
		return nil, fmt.Errorf("command pattern %q does not split into words: %v", p, err)
	}
	cp := &cmdPattern{}
	if n := len(words); n > 0 && strings.HasSuffix(words[n-1], ":*") && words[n-1] != ":*" {
		words[n-1] = strings.TrimSuffix(words[n-1], ":*")
		cp.prefix = true
	} else if n > 0 && words[n-1] == "*" {
		words = words[:n-1]
		cp.prefix = true
	}
	if len(words) == 0 {
		return nil, errors.New(`command pattern has no command word; use "*" for every command`)
	}
	cp.words = words
	cp.exact = !cp.prefix
	for _, w := range words {
		if strings.ContainsAny(w, "*?") {
			cp.exact = false
		}
		cp.literal += len(w) - strings.Count(w, "*") - strings.Count(w, "?")
	}
	return cp, nil
}

type result uint8

const (
	none result = iota
	maybe
	sure
)

// dynamic reports whether an argv word still holds an expansion the analyser could
// not resolve, so it could turn into anything at run time.
func dynamic(w string) bool { return strings.ContainsAny(w, "$`") }

func (cp *cmdPattern) match(argv []string, partial []bool, forAllow bool) result {
	if len(argv) == 0 {
		return none
	}
	for i, a := range argv {
		if i >= len(cp.words) {
			if cp.prefix {
				return sure
			}
			return none
		}
		if dynamic(a) || i < len(partial) && partial[i] || (i == 0 || !forAllow) && shell.IsGlob(a) {
			// A glob bash expands (git pus[h] with a file named push) may be any word:
			// it may match a deny or ask rule, never an allow rule.
			// From here on anything is possible: the word may expand to many words.
			return maybe
		}
		if !wordMatch(cp.words[i], a, i == 0, forAllow) {
			return none
		}
	}
	if len(argv) == len(cp.words) {
		return sure
	}
	return none
}

func wordMatch(pat, w string, first, forAllow bool) bool {
	if wildMatch(pat, w) {
		return true
	}
	if first && strings.Contains(w, "/") && (!forAllow || systemBin(w)) {
		return wildMatch(pat, path.Base(w))
	}
	return false
}

// systemBin reports a program in a system folder of programs: an allow rule's echo
// covers /bin/echo, not /tmp/x/echo or /proc/self/cwd/echo (the sixteenth red team:
// any program named echo ran under bash(echo *)).
func systemBin(w string) bool {
	// Where the kernel takes the path: a link before .. (/tmp/L/../../bin/echo) is
	// not /bin (the seventeenth red team); a program that is not there is no one's.
	real, err := filepath.EvalSymlinks(w)
	if err != nil {
		return false
	}
	dir := path.Dir(real)
	switch dir {
	case "/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin", "/opt/homebrew/bin":
		return true
	}
	// A folder of agentbox's own PATH (/usr/local/go/bin), but for relative entries and
	// the temporary folders anyone writes.
	for _, d := range strings.Split(os.Getenv("PATH"), ":") {
		if d = path.Clean(d); path.IsAbs(d) && d == dir && !strings.HasPrefix(d, "/tmp") && !strings.HasPrefix(d, "/var/tmp") && !strings.HasPrefix(d, "/dev/shm") {
			return true
		}
	}
	return false
}

// wildMatch matches s against a pattern where * is any run of bytes and ? one rune.
func wildMatch(p, s string) bool {
	px, sx := 0, 0
	nextP, nextS := -1, -1
	for px < len(p) || sx < len(s) {
		if px < len(p) {
			switch c := p[px]; c {
			case '*':
				nextP, nextS = px, sx+1
				px++
				continue
			case '?':
				if sx < len(s) {
					_, size := utf8.DecodeRuneInString(s[sx:])
					px++
					sx += size
					continue
				}
			default:
				if sx < len(s) && s[sx] == c {
					px++
					sx++
					continue
				}
			}
		}
		if nextS > 0 && nextS <= len(s) {
			px, sx = nextP, nextS
			continue
		}
		return false
	}
	return true
}

// ---- hosts

type hostPattern struct {
	any     bool // "*" host with a port
	suffix  bool // *.example.com
	host    string
	port    string
	exact   bool
	literal int
}

func compileHost(p string) (*hostPattern, error) {
	hp := &hostPattern{}
	h := strings.ToLower(p)
	if strings.Contains(h, "://") {
		return nil, errors.New("host pattern must be a host (example.com, *.example.com, host:port), not a URL")
	}
	if host, port, err := net.SplitHostPort(h); err == nil {
		n, perr := strconv.Atoi(port)
		if perr != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("port %q in host pattern is not a number from 1 to 65535", port)
		}
		h, hp.port = host, port
	}
	h = strings.TrimSuffix(h, ".")
	switch {
	case h == "*":
		hp.any = true
	case strings.HasPrefix(h, "*."):
		hp.suffix = true
		h = h[2:]
	}
	if !hp.any {
		if h == "" {
			return nil, errors.New("host pattern has no host")
		}
		if net.ParseIP(h) == nil {
			for _, label := range strings.Split(h, ".") {
				if label == "" {
					return nil, fmt.Errorf("host pattern %q has an empty label", p)
				}
				for _, r := range label {
					if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
						return nil, fmt.Errorf("host pattern %q: %q is not allowed in a host name (only a leading \"*.\" is a wildcard)", p, r)
					}
				}
			}
		}
		hp.host = h
	}
	hp.exact = !hp.any && !hp.suffix
	hp.literal = len(hp.host) + len(hp.port)
	return hp, nil
}

func (hp *hostPattern) match(host, port string) result {
	switch {
	case hp.any:
	case hp.suffix:
		if !strings.HasSuffix(host, "."+hp.host) {
			return none
		}
	default:
		if host != hp.host {
			return none
		}
	}
	if hp.port == "" || hp.port == port {
		return sure
	}
	if port == "" {
		return maybe // the port is not known: it could be this one
	}
	return none
}

// parseHostTarget reduces a URL or host[:port] to a lower-case host and a port.
func parseHostTarget(t string) (host, port string) {
	t = strings.TrimSpace(t)
	if strings.Contains(t, "://") {
		if u, err := url.Parse(t); err == nil {
			host, port = u.Hostname(), u.Port()
			if port == "" {
				switch strings.ToLower(u.Scheme) {
				case "https", "wss":
					port = "443"
				case "http", "ws":
					port = "80"
				}
			}
			return strings.TrimSuffix(strings.ToLower(host), "."), port
		}
	}
	if h, p, err := net.SplitHostPort(t); err == nil {
		return strings.TrimSuffix(strings.ToLower(h), "."), p
	}
	if i := strings.IndexByte(t, '/'); i >= 0 {
		t = t[:i]
	}
	return strings.TrimSuffix(strings.ToLower(strings.Trim(t, "[]")), "."), ""
}
