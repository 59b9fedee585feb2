package applets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/patch"
	"github.com/aymanbagabas/go-udiff"
)

// Patch applies a multi-file patch all or nothing.
type Patch struct {
	Patch  string `json:"patch" alias:"input,patch_text,diff" help:"the patch: apply_patch format (*** Begin Patch … *** End Patch) or a unified diff such as git diff output (in shell mode, read from stdin when not given)"`
	DryRun bool   `json:"dry_run" help:"locate every hunk and report the result without writing"`
	File   string `json:"patch_file" arg:"" optional:"" help:"read the patch from this workspace file instead (- for stdin: git diff | agentbox patch -)"`
	Strip  *int   `json:"strip" short:"p" schema:"min=0,max=64" help:"unified diffs: strip this many leading path components from file names, as patch -pN (default: git's a/ and b/ prefixes, like git apply)"`
}

// PatchFile is one file of the result.
type PatchFile struct {
	Op      string             `json:"op"` // add, update, delete
	Path    string             `json:"path"`
	NewPath string             `json:"new_path,omitempty"`
	Added   int                `json:"added"`
	Removed int                `json:"removed"`
	Hunks   []patch.HunkResult `json:"hunks,omitempty"`
	Mode    string             `json:"mode,omitempty"` // the permission bits a git mode line gave it ("0755")
}

// PatchResult is what patch returns.
type PatchResult struct {
	Format    string      `json:"format"`
	DryRun    bool        `json:"dry_run,omitempty"`
	Files     []PatchFile `json:"files"`
	Diff      string      `json:"diff"`
	Recovered []string    `json:"recovered,omitempty"` // files an interrupted earlier patch was rolled back in
}

// ReadShellInput implements core.ShellInput: `git diff | agentbox patch --dry-run` or
// `git diff | agentbox patch -`. With neither patch text nor a patch file on the command
// line, the patch comes from stdin, as it does for git apply.
func (p *Patch) ReadShellInput(stdin io.Reader, isTerminal bool) error {
	if p.Patch != "" || (p.File != "" && p.File != "-") || stdin == nil {
		return nil
	}
	if isTerminal {
		return core.Errorf(core.CodeInvalidParams, "no patch given: pipe it on stdin (git diff | agentbox patch), or name a patch file (agentbox patch fix.diff)")
	}
	p.File = ""
	b, err := io.ReadAll(io.LimitReader(stdin, core.MaxRequestBytes+1))
	if err != nil {
		return core.Errorf(core.CodeIOError, "reading the patch from stdin: %v", err)
	}
	if len(b) > core.MaxRequestBytes {
		return core.Errorf(core.CodeTooLarge, "the patch on stdin is larger than %d MiB; split it into smaller patches", core.MaxRequestBytes>>20)
	}
	p.Patch = string(b)
	return nil
}

// workspaceFS routes the patch engine's file access through the workspace, so every
// path is confined and every write is atomic. It remembers what it read, and each write
// or removal happens only if the file still holds that (checked under the directory
// lock), so a concurrent writer's change is never overwritten unseen.
type workspaceFS struct {
	ctx   context.Context
	env   *core.Env
	seen  map[string]core.Expectation // by absolute path
	dirs  map[string]string           // the real folder each write was decided in, by the name the patch gives
	gated bool                        // reads are decided by the gate (not during recovery)
	// made are the folders this patch's writes created, by absolute path: a rollback
	// that removes the file it created removes them too, when it leaves them empty.
	made map[string]core.Path
	// paths are the names resolved so far (path).
	paths map[string]core.Path
}

func newWorkspaceFS(ctx context.Context, env *core.Env) *workspaceFS {
	return &workspaceFS{ctx: ctx, env: env, seen: map[string]core.Expectation{}, gated: true}
}

// path resolves name once: the file the patch read and decided is the one it writes or
// removes, even if a link is swapped in for it (or a folder on the way) meanwhile, which
// a second resolution would follow (red team: a delete or move raced that way removed
// the link's target, .git/config or a read-only file).
func (w *workspaceFS) path(name string) (core.Path, error) {
	if p, ok := w.paths[name]; ok {
		return p, nil
	}
	p, err := w.env.Resolve(name)
	if err == nil {
		if w.paths == nil {
			w.paths = map[string]core.Path{}
		}
		// The engine goes on under the canonical name (Canonical gives p.Abs): it must
		// find this same resolution there, not make a second one.
		w.paths[name] = p
		if _, ok := w.paths[p.Abs]; !ok {
			w.paths[p.Abs] = p
		}
	}
	return p, err
}

// Reaches implements patch.Reacher: a journal of another workspace's patch is left for
// a call there.
func (w *workspaceFS) Reaches(path string) bool { return w.env.WS.Contains(path) }

// Link implements patch.Linker. A name that is no link is pinned to the entry itself,
// so reading it, checking it and removing it never follow a link swapped in later.
func (w *workspaceFS) Link(name string) (string, bool) {
	p, isLink, target, err := w.env.WS.ResolveEntry(w.env.Cwd, name)
	if err != nil {
		return "", false // the resolution that follows says what is wrong
	}
	if isLink {
		return target, true
	}
	if w.paths == nil {
		w.paths = map[string]core.Path{}
	}
	w.paths[name] = p
	w.paths[p.Abs] = p // the engine reads and writes under the canonical name
	return "", false
}

// Canonical implements patch.Canonicalizer: the journal then holds absolute paths, so a
// later call from another directory still rolls back the right files.
func (w *workspaceFS) Canonical(name string) (string, error) {
	p, err := w.path(name)
	if err != nil {
		return "", err
	}
	return p.Abs, nil
}

func (w *workspaceFS) ReadFile(name string) ([]byte, fs.FileMode, error) {
	p, err := w.path(name)
	if err != nil {
		return nil, 0, err
	}
	// Every file the patch reads to match (a move's source included) is decided as a
	// read first: a hunk's context, a dry run or a rename must not reveal or carry off
	// what the policy does not let the agent read.
	// Recovery (not gated) only puts back what an interrupted patch had written.
	if w.gated {
		if _, err := w.env.Authorize(w.ctx, core.Request{Capability: core.CapFSRead, Target: p.Abs, Summary: "read " + p.Abs + " to patch it"}); err != nil {
			return nil, 0, err
		}
	}
	f, fi, err := w.env.WS.OpenRegular(p)
	if err != nil {
		if core.AsError(err).Code == core.CodeNotFound {
			w.seen[p.Abs] = core.ExpectContent(nil)
			return nil, 0, fs.ErrNotExist
		}
		return nil, 0, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, EditMaxFileBytes+1))
	if err != nil {
		return nil, 0, err
	}
	if len(data) > EditMaxFileBytes {
		return nil, 0, core.Errorf(core.CodeTooLarge, "%s is larger than %d MiB; patch it with bash tools instead", p.Abs, EditMaxFileBytes>>20)
	}
	w.seen[p.Abs] = core.ExpectContent(data)
	// The whole mode, so a moved or restored setuid file keeps its special bits.
	return data, fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky), nil
}

func (w *workspaceFS) WriteFile(name string, data []byte, mode fs.FileMode) error {
	p, err := w.path(name)
	if err != nil {
		return err
	}
	want, ok := w.seen[p.Abs]
	if !ok && w.gated {
		return core.Errorf(core.CodeConflict, "%s is not the file this patch read; read it again and redo the patch", p.Abs)
	}
	info, err := w.env.WS.WriteAtomic(p, data, core.WriteOptions{Perm: mode, SetPerm: true, CreateDirs: true, Expect: want, OnWritten: recordWrite(w.env, data), Dir: w.dirs[name]})
	if err != nil {
		for _, d := range info.NewDirs { // deepest first; the patch takes back what it did
			if w.env.WS.Remove(d) != nil {
				break
			}
		}
		return err
	}
	for _, d := range info.NewDirs {
		if w.made == nil {
			w.made = map[string]core.Path{}
		}
		w.made[d.Abs] = d
	}
	w.seen[p.Abs] = core.ExpectContent(data)
	return nil
}

func (w *workspaceFS) Remove(name string) error {
	p, err := w.path(name)
	if err != nil {
		return err
	}
	want, ok := w.seen[p.Abs]
	if !ok && w.gated {
		// Every file a patch removes was read first: one it did not read is not the
		// file it decided.
		return core.Errorf(core.CodeConflict, "%s is not the file this patch read; read it again and redo the patch", p.Abs)
	}
	if err := w.env.WS.RemoveExpect(p, want); err != nil {
		return err
	}
	w.seen[p.Abs] = core.ExpectContent(nil)
	// A folder is removed only while empty, so one that something else wrote into
	// meanwhile stays.
	for d, ok := w.made[filepath.Dir(p.Abs)]; ok; d, ok = w.made[filepath.Dir(d.Abs)] {
		if w.env.WS.Remove(d) != nil {
			break
		}
		delete(w.made, d.Abs)
	}
	return nil
}

// SweepTemp implements patch.TempSweeper.
func (w *workspaceFS) SweepTemp(name string) error {
	p, err := w.path(name)
	if err != nil {
		return err
	}
	return w.env.WS.SweepTemp(p)
}

// patchJournals is where commits keep their journals: shared by every session, so a
// restarted harness with a new session still rolls back a patch killed half-way.
func patchJournals(env *core.Env) (patch.Journals, error) {
	dir, err := env.Session.SharedDir("patch-journals")
	return patch.Journals{Dir: dir}, err
}

// recoverInterruptedPatches rolls back any patch a killed agentbox left half applied.
// Every applet that changes files calls it first, so no call ever builds on half a
// patch.
func recoverInterruptedPatches(ctx context.Context, env *core.Env) ([]string, error) {
	journals, err := patchJournals(env)
	if err != nil {
		return nil, err
	}
	rec, err := journals.RecoverAll(ctx, &workspaceFS{ctx: ctx, env: env, seen: map[string]core.Expectation{}})
	if err != nil {
		return nil, core.Errorf(core.CodeIOError, "rolling back an interrupted patch (journals in %s) failed: %v; fix the files it names and call again", journals.Dir, err)
	}
	return rec.Restored, nil
}

// CheckRequest implements core.RequestChecker: patch text and a patch file are two
// answers to one question, and neither may be dropped unread.
func (p *Patch) CheckRequest(present map[string]bool) error {
	if present["patch"] && present["patch_file"] {
		return core.Errorf(core.CodeInvalidParams, "both patch and patch_file are given; pass the patch text in patch, or name the file holding it in patch_file, not both")
	}
	return nil
}

// Run implements core.Command.
func (p *Patch) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	fsys := newWorkspaceFS(ctx, env)
	res := PatchResult{Files: []PatchFile{}}
	recovered, err := recoverInterruptedPatches(ctx, env)
	if err != nil {
		return nil, err
	}
	res.Recovered = recovered
	if p.Patch == "" && p.File != "" {
		data, _, err := fsys.ReadFile(p.File)
		if err != nil {
			// What went wrong decides the code: missing, outside, not a regular file.
			return nil, core.Errorf(core.AsError(err).Code, "cannot read the patch file %s: %v", p.File, err)
		}
		p.Patch = string(data)
	}
	if strings.TrimSpace(p.Patch) == "" {
		return nil, core.Errorf(core.CodeInvalidParams, "no patch given: pass the patch text in patch (or input), or a patch_file")
	}
	strip := -1
	if p.Strip != nil {
		strip = *p.Strip
	}
	parsed, err := patch.ParseStrip(p.Patch, strip)
	if err != nil {
		return nil, core.Errorf(core.CodeInvalidParams, "the patch does not parse: %v. Send apply_patch format (*** Begin Patch / *** Update File: path / @@ / -old / +new / *** End Patch) or a unified diff", err)
	}
	res.Format = parsed.Format
	prepared, err := patch.Prepare(parsed, fsys)
	if err != nil {
		return nil, patchError(err)
	}
	var diff strings.Builder
	var targets []string
	var touched []string // every path written or removed: a move's source too
	for _, f := range prepared.Files {
		pf := PatchFile{Op: f.Op.String(), Path: f.Path, NewPath: f.NewPath, Added: f.Added, Removed: f.Removed, Hunks: f.Hunks}
		if f.NewMode != 0 {
			pf.Mode = fmt.Sprintf("%04o", uint32(f.NewMode))
		}
		res.Files = append(res.Files, pf)
		targets = append(targets, f.Target())
		touched = append(touched, f.Path)
		if f.NewPath != "" && f.NewPath != f.Path {
			touched = append(touched, f.NewPath)
		}
		from, to := "a/"+f.Path, "b/"+f.Target()
		if f.Old == nil {
			from = "/dev/null"
		}
		if f.New == nil {
			to = "/dev/null"
		}
		diff.WriteString(udiff.Unified(from, to, string(f.Old), string(f.New)))
		// The same stale-file protection as edit: a file this session read must not
		// have changed since.
		if f.Old != nil {
			if fp, err := env.Resolve(f.Path); err == nil {
				sum := sha256.Sum256(f.Old)
				stamp := core.FileStamp{Path: fp.Abs, Size: int64(len(f.Old)), SHA256: hex.EncodeToString(sum[:])}
				if fi, err := env.WS.Stat(fp); err == nil {
					stamp = core.StampOf(fp.Abs, fi, f.Old)
				}
				if err := checkStamp(env, stamp, ""); err != nil {
					return nil, err
				}
			}
		}
	}
	result := &core.Result{}
	res.Diff = capDiff(env, "patch-diff", diff.String(), result)
	res.DryRun = p.DryRun
	if !p.DryRun && prepared.Changed() {
		// The files decided are the ones written: the names the patch's files were read
		// under (links resolved then), with the names as given, in case one leads
		// elsewhere now. Each is written in the folder it was decided in, or not at all.
		written := prepared.Written()
		decide := append(slices.Clone(touched), written...)
		d, err := env.Authorize(ctx, core.Request{Capability: core.CapFSWrite, Target: decide[0], Targets: decide[1:], Summary: fmt.Sprintf("apply a patch to %s (%s)", plural(len(targets), "file"), strings.Join(targets, ", "))})
		if err != nil {
			return nil, err
		}
		fsys.dirs = map[string]string{}
		for _, t := range written {
			if tp, err := env.Resolve(t); err == nil {
				fsys.dirs[t] = decidedDir(env, tp)
			}
		}
		journals, err := patchJournals(env)
		if err != nil {
			return nil, err
		}
		journal, done, err := journals.Begin(ctx)
		if err != nil {
			return nil, core.Errorf(core.CodeIOError, "%v; nothing was written", err)
		}
		err = prepared.Commit(fsys, patch.CommitOptions{Journal: journal})
		done()
		if err != nil {
			return nil, patchError(err)
		}
		result.Meta = map[string]any{"decision": d}
	}
	result.Data = res
	return result, nil
}

func patchError(err error) error {
	var pe *patch.Error
	if !errors.As(err, &pe) {
		return core.AsError(err)
	}
	code := map[string]core.ErrorCode{
		patch.KindNotFound: core.CodeNotFound, patch.KindExists: core.CodeConflict, patch.KindNoMatch: core.CodeNoMatch,
		patch.KindAmbiguous: core.CodeAmbiguousMatch, patch.KindConflict: core.CodeConflict, patch.KindIO: core.CodeIOError, patch.KindBinary: core.CodeBinaryFile,
		patch.KindInvalid: core.CodeInvalidParams, patch.KindReadOnly: core.CodePermissionDenied,
	}[pe.Kind]
	if code == "" {
		code = core.CodeIOError
	}
	advice := ""
	if pe.Kind == patch.KindNoMatch || pe.Kind == patch.KindAmbiguous {
		advice = " Read the file again and fix that hunk."
	}
	var inner *core.Error
	if errors.As(pe.Err, &inner) && inner.Code != core.CodeIOError && inner.Code != core.CodeInternal {
		// The file was refused (outside, denied, needs approval, too large...), not the
		// hunk: the inner error's code and message say what to do, and its metadata (the
		// decision) goes along.
		code, advice = inner.Code, ""
	} else {
		inner = nil
	}
	details := map[string]any{"path": pe.Path, "hunk": pe.Hunk, "patch_line": pe.PatchLine}
	if len(pe.Candidates) > 0 {
		details["lines"] = pe.Candidates
	}
	if pe.Nearest != nil {
		details["nearest"] = pe.Nearest
	}
	msg := pe.Error() + "\nNothing was written: a patch applies whole or not at all." + advice
	ce := &core.Error{Code: code, Message: msg, Details: details}
	if inner != nil {
		ce.Meta = inner.Meta
	}
	return ce
}

// RenderText implements core.TextRenderer.
func (r PatchResult) RenderText(p *core.Printer) {
	verb := "Patched"
	if r.DryRun {
		verb = "Would patch"
	}
	files := "files"
	if len(r.Files) == 1 {
		files = "file"
	}
	p.Printf("%s %d %s:\n", verb, len(r.Files), files)
	for _, f := range r.Files {
		name := f.Path
		if f.NewPath != "" {
			name += " → " + f.NewPath
		}
		p.Printf("  %-6s %s (+%d -%d)\n", f.Op, p.Path(name), f.Added, f.Removed)
	}
	for _, r := range r.Recovered {
		p.Printf("%s %s\n", p.Warn("rolled back an interrupted patch in"), r)
	}
}
