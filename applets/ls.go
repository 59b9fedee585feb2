package applets

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/grep"
	"github.com/agentbox/agentbox/core/walk"
	"github.com/bmatcuk/doublestar/v4"
)

// Limits of ls, used by the code and quoted in the descriptions.
const (
	LsDefaultLimit = 1000 // entries returned before "... and N more entries"
	LsMaxDepth     = 20   // deepest tree view
	LsTimeBudget   = 20 * time.Second
)

// Ls lists a directory, or with depth a tree of them.
type Ls struct {
	Path             string `json:"path" alias:"dir,directory,dir_path" arg:"" optional:"" default:"." help:"the directory to list, absolute or relative to the working directory"`
	LongFormat       bool   `json:"long_format" alias:"long" short:"l" help:"show permissions, size and modification time"`
	IncludeHidden    bool   `json:"include_hidden" alias:"all,hidden" short:"a" help:"include entries whose names start with a dot"`
	Pattern          string `json:"pattern" alias:"glob,filter" help:"only entries whose names match this glob (e.g. *.go, *.{ts,tsx}); with depth, folders stay when something inside matches"`
	SortBy           string `json:"sort_by" alias:"sort" enum:"name,size,modified" default:"name" help:"sort by name, size or modified time (newest first)"`
	Reverse          bool   `json:"reverse" short:"r" help:"reverse the sort order"`
	DirectoriesFirst bool   `json:"directories_first" default:"true" negatable:"" help:"list directories before files"`
	Limit            int    `json:"limit" default:"1000" schema:"min=1" help:"maximum entries to return"`
	Depth            int    `json:"depth" alias:"max_depth,recursive_depth" short:"L" default:"1" schema:"min=1,max=20" help:"levels to list: 1 is the folder itself, more gives a tree view"`
	RespectIgnore    bool   `name:"respect" json:"respect_gitignore" alias:"gitignore" default:"true" negatable:"" help:"leave out what .gitignore, .ignore and git's excludes ignore; node_modules-like folders are listed but not descended into"`

	// The spellings ls users type at a shell (shell mode only).
	AlmostAll  bool     `json:"-" short:"A" name:"almost-all" help:"include hidden entries, as -a (. and .. are never listed)"`
	SortTime   bool     `json:"-" short:"t" name:"sort-time" help:"sort by modification time, newest first (sort_by modified)"`
	SortSize   bool     `json:"-" short:"S" name:"sort-size" help:"sort by size, largest first (sort_by size)"`
	Recursive  bool     `json:"-" short:"R" name:"recursive" help:"list the whole tree (depth 20)"`
	OnePerLine bool     `json:"-" short:"1" name:"one-per-line" help:"accepted for ls's sake: entries are printed one per line"`
	Human      bool     `json:"-" name:"human-readable" help:"sizes as 4.0K, 1.2M in the long format (ls -h); without it the long format shows bytes"`
	Directory  bool     `json:"-" short:"d" name:"directory" help:"show the folder itself, not its contents"`
	MorePaths  []string `json:"-" arg:"" optional:"" name:"paths" sep:"none" help:"more files or folders to list (at a shell, as ls a b)"`

	shell bool // typed at a shell: a file or -d shows one entry; -l sizes in bytes unless -h
}

// LsEntry is one listed entry.
type LsEntry struct {
	Name     string    `json:"name"`
	Path     string    `json:"path,omitempty"` // relative to the listed folder, with depth > 1
	Type     string    `json:"type"`           // file, dir, symlink, other
	Size     int64     `json:"size"`
	Mode     string    `json:"mode,omitempty"`
	Modified time.Time `json:"modified,omitzero"`
	Target   string    `json:"target,omitempty"`
	Link     string    `json:"link,omitempty"` // long format: a symlink's target as written
	// Unknown: the system would not let its size, mode and time be read (a folder
	// that may be listed but not entered); size is then 0, as nothing is known.
	Unknown bool `json:"unknown,omitempty"`
	level   int  // 0 for the folder's own entries
}

// LsResult is what ls returns.
type LsResult struct {
	Path    string    `json:"path"`
	Entries []LsEntry `json:"entries"`
	Total   int       `json:"total"`
	More    int       `json:"more"` // entries left out by limit
	Partial string    `json:"partial,omitempty"`
	Denied  int       `json:"denied,omitempty"` // entries left out: the permission policy does not allow reading them
	// Folders the system would not let the walk see, so not listed; their paths are
	// relative to Path, as the entries' are.
	Unlistable *walk.Unlistable `json:"unlistable,omitempty"`
	// Sections: at a shell with several paths (ls a b), the folders' listings, after
	// the files named (Entries); each is shown under its heading, the path as typed.
	Sections []LsResult `json:"sections,omitempty"`
	long     bool
	human    bool // long format sizes as 4.0K (always for agents' text; ls -h at a shell)
	shell    bool
	heading  string
	typed    string // the path as typed at a shell, which the notes name folders under
	itself   bool   // the entry the path names (ls FILE, ls -d DIR), not a listing
}

// ShellDefaults implements core.ShellDefaulter: ls's own flags set the fields an agent
// sets by name.
func (l *Ls) ShellDefaults(given func(string) bool) {
	l.shell = true
	if !given("limit") {
		l.Limit = LsShellLimit // a person sees the whole folder
	}
	if l.AlmostAll {
		l.IncludeHidden = true
	}
	if l.SortTime || l.SortSize {
		l.SortBy = "modified"
		if l.SortSize {
			l.SortBy = "size"
		}
		if !given("directories-first") {
			l.DirectoriesFirst = false // ls -t and -S mix folders and files
		}
	}
	if l.Recursive && !given("depth") {
		l.Depth = LsMaxDepth
	}
}

// RewriteShellArgs implements core.ShellArgsRewriter: ls's -h means human-readable
// sizes (in -lh and alone), so it is spelled out before the parser takes -h for help;
// --help still shows the help.
func (l *Ls) RewriteShellArgs(args []string) []string {
	out := make([]string, 0, len(args)+1)
	human := false
	for i, a := range args {
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.Trim(a[1:], "lartSRA1dh") == "" && strings.Contains(a, "h") {
			human = true
			if a = strings.ReplaceAll(a, "h", ""); a == "-" {
				continue
			}
		}
		out = append(out, a)
	}
	if human {
		out = append(out, "--human-readable")
	}
	return out
}

// Run implements core.Command.
func (l *Ls) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	if l.Pattern != "" && !doublestar.ValidatePattern(l.Pattern) {
		return nil, core.Errorf(core.CodeInvalidParams, "pattern %q is not a valid glob; use *, ?, [abc], {a,b}", l.Pattern)
	}
	if len(l.MorePaths) > 0 {
		return l.runEach(ctx, env)
	}
	depth := min(max(l.Depth, 1), LsMaxDepth)
	p, err := env.Resolve(l.Path)
	if err != nil {
		return nil, err
	}
	if _, err := env.Authorize(ctx, core.Request{Capability: core.CapFSRead, Target: p.Abs, Summary: "list " + p.Abs}); err != nil {
		return nil, err
	}
	fi, err := env.WS.Stat(p)
	if l.shell && (err != nil || !fi.IsDir() || l.Directory) {
		return l.itself(env, p, fi, err)
	}
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, core.Errorf(core.CodeInvalidParams, "%s is a file, not a directory; use read to see its content", p.Abs)
	}
	// The one walker, depth-limited; the always-skipped folders are listed (they exist)
	// but not descended into, so the walker's own skip list is off and applied here.
	opt := walkOptions(env, l.IncludeHidden, l.RespectIgnore, false, LsTimeBudget)
	skip := opt.SkipDirs
	opt.SkipDirs, opt.Dirs, opt.MaxDepth = []string{}, true, depth
	if !l.RespectIgnore {
		skip = []string{}
	}
	defer grep.PauseGC(SearchGCLimit)()
	children, st, err := l.walkTree(ctx, env, p, opt, skip)
	if err != nil {
		return nil, err
	}
	t := &lsTree{l: l, children: children, depth: depth, kept: map[string]int{}}
	total := t.count("", 0)
	res := LsResult{Path: p.Abs, Total: total, long: l.LongFormat, human: l.Human || !l.shell, shell: l.shell, typed: l.Path, Entries: []LsEntry{}}
	res.Denied = int(st.Denied)
	if res.Unlistable = st.Unlistable.Or(); res.Unlistable != nil {
		for i, d := range res.Unlistable.Paths {
			res.Unlistable.Paths[i] = relUnder(p.Abs, d) // as the entries are named
		}
	}
	if st.Truncated {
		res.Partial = st.Reason
	}
	if total > l.Limit {
		res.More = total - l.Limit
	}
	t.each("", 0, func(n *lsNode, rel string, level int) bool {
		if len(res.Entries) == l.Limit {
			return false
		}
		res.Entries = append(res.Entries, n.entry(rel, level, depth > 1, l.LongFormat))
		return true
	})
	r := &core.Result{Data: res, Interrupted: cancelled(res.Partial)}
	if res.More > 0 || res.Partial != "" {
		r.Spilled(t.spill(env, depth > 1))
	}
	return r, nil
}

// itself shows the entry p itself, as ls does for ls FILE, ls LINK and ls -d DIR; a
// link is shown as a link (a broken one too), with its target in the long format. fi
// and err are p's stat.
func (l *Ls) itself(env *core.Env, p core.Path, fi fs.FileInfo, err error) (*core.Result, error) {
	// The link itself, named through its resolved folder: Resolve follows links.
	link := p
	if dir, derr := env.Resolve(filepath.Dir(l.Path)); derr == nil {
		base := filepath.Base(l.Path)
		link = core.Path{Abs: filepath.Join(dir.Abs, base), Root: dir.Root, Rel: filepath.Join(dir.Rel, base)}
	}
	if lfi, lerr := env.WS.Lstat(link); lerr == nil && lfi.Mode()&fs.ModeSymlink != 0 && (err != nil || !fi.IsDir() || l.Directory) {
		fi, err, p = lfi, nil, link
	}
	if err != nil {
		return nil, err
	}
	kind := "file"
	switch {
	case fi.IsDir():
		kind = "dir"
	case fi.Mode()&fs.ModeSymlink != 0:
		kind = "symlink"
	case !fi.Mode().IsRegular():
		kind = "other"
	}
	e := LsEntry{Name: l.Path, Type: kind, Size: fi.Size()}
	if l.LongFormat {
		e.Mode, e.Modified = fi.Mode().String(), fi.ModTime()
		if kind == "symlink" {
			e.Link, _ = env.WS.Readlink(p)
		}
	}
	return &core.Result{Data: LsResult{Path: p.Abs, Entries: []LsEntry{e}, Total: 1, long: l.LongFormat, human: l.Human, shell: true, itself: true}}, nil
}

// walkTree walks p with the one walker, keeping a compact node per entry by its parent
// folder: a tree of a million files must fit in a few hundred MB, so full entries are
// made only for the page and the sidecar is streamed. Folders named in skip are listed
// but not descended into.
func (l *Ls) walkTree(ctx context.Context, env *core.Env, p core.Path, opt walk.Options, skip []string) (map[string][]lsNode, walk.Stats, error) {
	var mu sync.Mutex
	children := map[string][]lsNode{} // parent rel ("" for the folder) -> entries
	st, err := walk.Walk(ctx, p.Abs, opt, func(e *walk.Entry) error {
		n := lsNode{name: strings.Clone(e.Name), kind: lsFile}
		typ := e.D.Type()
		if info, err := e.D.Info(); err == nil {
			n.size, n.mtime, n.mode, n.stat = info.Size(), info.ModTime().UnixNano(), info.Mode(), true
		}
		switch {
		case e.IsDir:
			n.kind = lsDir
		case typ&fs.ModeSymlink != 0:
			n.kind = lsSymlink
			child := core.Path{Abs: e.Path, Root: p.Root, Rel: filepath.Join(p.Rel, filepath.FromSlash(e.Rel))}
			if t, err := env.WS.Stat(child); err == nil && t.IsDir() {
				n.toDir = true
			}
			if l.LongFormat {
				n.link, _ = env.WS.Readlink(child)
			}
		case !typ.IsRegular():
			n.kind = lsOther
		}
		parent := path.Dir(e.Rel)
		if parent == "." {
			parent = ""
		}
		mu.Lock()
		children[parent] = append(children[parent], n)
		mu.Unlock()
		if e.IsDir && walk.Skipped(skip, e.Name) {
			return fs.SkipDir // listed, not descended into
		}
		return nil
	})
	if err != nil {
		return nil, st, walkError("list", p.Abs, err)
	}
	return children, st, nil
}

// spill writes every entry of the tree to a sidecar file, one per line (paths when
// the listing is recursive), folders with a trailing slash.
func (t *lsTree) spill(env *core.Env, recursive bool) (string, error) {
	return env.Session.SpillStream("ls", func(w *bufio.Writer) error {
		t.each("", 0, func(n *lsNode, rel string, _ int) bool {
			if recursive {
				w.WriteString(rel)
			} else {
				w.WriteString(n.name)
			}
			if n.kind == lsDir {
				w.WriteByte('/')
			}
			return w.WriteByte('\n') == nil
		})
		return nil // a write error is sticky: Flush reports it
	})
}

// lsNode is what ls keeps of one walked entry until the listing is put in order.
type lsNode struct {
	name  string
	size  int64
	mtime int64 // Unix nanoseconds
	mode  fs.FileMode
	kind  uint8
	toDir bool // a symbolic link to a directory
	stat  bool // size, mtime and mode are known
	link  string
}

const (
	lsFile uint8 = iota
	lsDir
	lsSymlink
	lsOther
)

var lsKinds = [...]string{lsFile: "file", lsDir: "dir", lsSymlink: "symlink", lsOther: "other"}

func (n *lsNode) entry(rel string, level int, tree, long bool) LsEntry {
	e := LsEntry{Name: n.name, Type: lsKinds[n.kind], Size: n.size, level: level}
	if tree {
		e.Path = rel
	}
	if n.toDir {
		e.Target = "dir"
	}
	e.Link = n.link
	if long && n.stat {
		e.Mode, e.Modified = n.mode.String(), time.Unix(0, n.mtime)
	}
	e.Unknown = !n.stat
	return e
}

// lsTree puts the walked entries in display order: each folder's entries sorted, each
// directory followed by its own (a pre-order tree walk). With a pattern, files must
// match it; in a tree, a folder stays when something inside it does.
type lsTree struct {
	l        *Ls
	children map[string][]lsNode
	depth    int
	kept     map[string]int // folder rel -> entries shown below it
}

// count sorts the entries below parent (at level) and returns how many are shown,
// remembering each folder's count for each.
func (t *lsTree) count(parent string, level int) int {
	list := t.children[parent]
	t.l.sort(list)
	n := 0
	for i := range list {
		e := &list[i]
		sub := 0
		if e.kind == lsDir && level+1 < t.depth {
			rel := joinRel(parent, e.name)
			sub = t.count(rel, level+1)
			t.kept[rel] = sub
		}
		if t.shown(e, sub) {
			n += 1 + sub
		}
	}
	return n
}

func (t *lsTree) shown(e *lsNode, sub int) bool {
	if t.l.Pattern == "" {
		return true
	}
	ok, _ := doublestar.Match(t.l.Pattern, e.name)
	return ok || (t.depth > 1 && e.kind == lsDir && sub > 0)
}

// each calls fn for the shown entries below parent in display order, until fn returns
// false; it reports whether fn wanted more. count must have run first.
func (t *lsTree) each(parent string, level int, fn func(n *lsNode, rel string, level int) bool) bool {
	list := t.children[parent]
	for i := range list {
		e := &list[i]
		rel := joinRel(parent, e.name)
		sub := t.kept[rel] // 0 for files and unexpanded folders
		if !t.shown(e, sub) {
			continue
		}
		if !fn(e, rel, level) {
			return false
		}
		if sub > 0 && !t.each(rel, level+1, fn) {
			return false
		}
	}
	return true
}

func joinRel(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "/" + name
}

func (l *Ls) sort(entries []lsNode) {
	less := func(a, b *lsNode) bool {
		switch l.SortBy {
		case "size":
			if a.size != b.size {
				return a.size > b.size
			}
		case "modified":
			if a.mtime != b.mtime {
				return a.mtime > b.mtime
			}
		}
		return a.name < b.name
	}
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := &entries[i], &entries[j]
		if l.DirectoriesFirst && (a.kind == lsDir) != (b.kind == lsDir) {
			return a.kind == lsDir
		}
		if l.Reverse {
			return less(b, a)
		}
		return less(a, b)
	})
}

// RenderText implements core.TextRenderer: one entry a line, a tree indented by two
// spaces a level.
func (r LsResult) RenderText(p *core.Printer) {
	r.renderEntries(p)
	for i, s := range r.Sections {
		if i > 0 || len(r.Entries) > 0 {
			p.Println()
		}
		p.Println(s.heading + ":")
		s.RenderText(p)
	}
	if r.Sections != nil {
		return
	}
	if r.More > 0 {
		p.Note(fmt.Sprintf("... and %d more entries (showing %d of %d; raise limit or narrow with pattern)", r.More, len(r.Entries), r.Total))
	}
	if r.Total == 0 && !r.shell {
		p.Println(p.Dim("(empty)"))
	}
	if r.Denied > 0 {
		p.Note(fmt.Sprintf("(%s left out: the permission policy does not allow reading them)", plural(r.Denied, "entry")))
	}
	if n := r.unknownEntries(); n > 0 {
		p.Note(fmt.Sprintf("(%s could not be examined: the system would not let their size, mode and time be read; check the permissions of the folder holding them)", plural(n, "entry")))
	}
	if r.Unlistable != nil {
		u := *r.Unlistable
		if r.shell && r.typed != "" && r.typed != "." {
			// Named as typed, as ls names what it cannot open: ls -R a says a/b.
			u.Paths = nil
			for _, d := range r.Unlistable.Paths {
				u.Paths = append(u.Paths, strings.TrimSuffix(r.typed, "/")+"/"+d)
			}
		}
		p.Note(unlistableNote("listed", &u))
	}
	if r.Partial != "" {
		p.Note("partial result: " + r.Partial)
	}
}

func (r LsResult) unknownEntries() int {
	n := 0
	for _, e := range r.Entries {
		if e.Unknown {
			n++
		}
	}
	return n
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1fG", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1fM", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fK", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}

// LsShellLimit is the entry limit of ls typed at a shell: effectively none.
const LsShellLimit = 1 << 30

// ShellErrorExit implements core.ShellErrorExiter: a path ls cannot list exits 2, as in
// ls (1 is its "minor problems").
func (l *Ls) ShellErrorExit() int { return 2 }

// runEach lists several paths typed at a shell (ls a b): the files first, then each
// folder under a "name:" heading, as ls prints them; a path that cannot be listed is
// reported on stderr and makes the exit status 2, after the others are listed.
func (l *Ls) runEach(ctx context.Context, env *core.Env) (*core.Result, error) {
	merged := LsResult{long: l.LongFormat, human: l.Human || !l.shell, shell: l.shell, Entries: []LsEntry{}}
	var folders []LsResult
	failed := false
	for _, path := range append([]string{l.Path}, l.MorePaths...) {
		one := *l
		one.Path, one.MorePaths = path, nil
		res, err := one.Run(ctx, env)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			fmt.Fprintf(env.Stderr, "ls: %s\n", core.AsError(err).Message)
			failed = true
			continue
		}
		r := res.Data.(LsResult)
		if r.itself {
			merged.Entries = append(merged.Entries, r.Entries...)
			continue
		}
		r.heading = path
		folders = append(folders, r)
	}
	merged.Total = len(merged.Entries)
	merged.Sections = folders
	result := &core.Result{Data: merged, Interrupted: cancelled(merged.Partial)}
	if failed {
		result.ExitCode = 2
	}
	return result, nil
}

func (r LsResult) renderEntries(p *core.Printer) {
	for _, e := range r.Entries {
		name := strings.Repeat("  ", e.level) + e.Name
		if e.Type == "dir" {
			name = strings.Repeat("  ", e.level) + p.Path(e.Name+"/")
		}
		if !r.long {
			p.Println(name)
			continue
		}
		size := strconv.FormatInt(e.Size, 10)
		if r.human {
			size = humanSize(e.Size)
		}
		mode := e.Mode
		if strings.HasPrefix(mode, "L") {
			mode = "l" + mode[1:] // ls's letter for a link (Go's FileMode says L)
		}
		if e.Link != "" {
			name += " -> " + e.Link
		}
		when := e.Modified.Format("2006-01-02 15:04")
		if e.Unknown {
			mode, size, when = "??????????", "?", "?               " // as ls shows what it cannot stat
		}
		p.Printf("%s %8s %s %s\n", mode, size, when, name)
	}
}
