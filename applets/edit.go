package applets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/textedit"
	"github.com/agentbox/agentbox/core/textfmt"
	"github.com/aymanbagabas/go-udiff"
)

// Limits of edit, used by the code and quoted in the descriptions.
const (
	EditMaxFileBytes = 256 << 20 // files larger than this are refused (too_large)
	EditMaxDiffBytes = 100 << 10 // the diff in the result is capped; the rest goes to the sidecar
)

// EditOp is one edit of a multi-edit.
type EditOp struct {
	OldString      string  `json:"old_string" alias:"old_str,oldText,old,search" schema:"required" help:"the exact text to replace"`
	NewString      string  `json:"new_string" alias:"new_str,newText,new,replace" schema:"required" help:"the replacement text"`
	ReplaceAll     bool    `json:"replace_all" alias:"allow_multiple,replaceAll" help:"replace every occurrence instead of requiring a unique one"`
	FuzzyMatch     bool    `json:"fuzzy_match" help:"accept a near match (Levenshtein similarity at least fuzzy_threshold)"`
	FuzzyThreshold float64 `json:"fuzzy_threshold" schema:"min=0,max=1" default:"0.7" help:"similarity a fuzzy match needs, 0-1"`
}

// Edit replaces text in a file: one edit, or many at once with edits.
type Edit struct {
	FilePath       string   `json:"file_path" alias:"path,filePath,file,filename" arg:"" required:"" help:"the file to edit, absolute or relative to the working directory"`
	OldString      string   `json:"old_string" alias:"old_str,oldText,old,search" help:"the text to replace; must match exactly one place unless replace_all (an empty string creates a missing file)"`
	NewString      string   `json:"new_string" alias:"new_str,newText,new,replace" help:"the replacement text"`
	ReplaceAll     bool     `json:"replace_all" alias:"allow_multiple,replaceAll" help:"replace every occurrence instead of requiring a unique one"`
	FuzzyMatch     bool     `json:"fuzzy_match" help:"accept a near match (Levenshtein similarity at least fuzzy_threshold)"`
	FuzzyThreshold float64  `json:"fuzzy_threshold" schema:"min=0,max=1" default:"0.7" help:"similarity a fuzzy match needs, 0-1"`
	Edits          []EditOp `json:"edits" type:"json" schema:"maxItems=50" help:"several edits applied atomically (all validated against the original first; overlaps are refused); use instead of old_string/new_string"`
	Sequential     bool     `json:"sequential" help:"apply edits in order, each to the result of the one before (Claude Code's MultiEdit), still all or nothing; default: every edit matches the original"`
	DryRun         bool     `json:"dry_run" help:"plan the edits and report them without writing"`
	ExpectedSHA256 string   `json:"expected_sha256" schema:"pattern=^[0-9a-f]{64}$" help:"refuse unless the file's current SHA-256 is this"`
}

// EditResult is what edit returns.
type EditResult struct {
	Path       string             `json:"path"`
	Created    bool               `json:"created,omitempty"`
	DryRun     bool               `json:"dry_run,omitempty"`
	Edits      []textedit.Applied `json:"edits"`
	FuzzyCount int                `json:"fuzzy_count"`
	FuzzyAvg   float64            `json:"fuzzy_avg_similarity,omitempty"`
	BytesDelta int                `json:"bytes_delta"`
	Diff       string             `json:"diff"`
	LineEnding string             `json:"line_ending"` // lf, crlf, cr, mixed or none
	// FinalNewline: the file ends with a line break (kept as it was).
	FinalNewline bool   `json:"final_newline"`
	Encoding     string `json:"encoding"`
}

// CheckRequest implements core.RequestChecker: a missing new_string is not an empty
// one (a call cut short, or null, would otherwise delete what old_string matched).
func (e *Edit) CheckRequest(present map[string]bool) error {
	switch {
	case present["edits"] && len(e.Edits) == 0:
		return core.Errorf(core.CodeInvalidParams, "edits is empty; give at least one {\"old_string\", \"new_string\"}, or use old_string and new_string")
	case !present["edits"] && !present["new_string"]:
		return core.Errorf(core.CodeInvalidParams, "new_string is missing; give the replacement text (\"\" deletes what old_string matches), or use edits")
	}
	return nil
}

func (e *Edit) ops() ([]textedit.Edit, error) {
	if len(e.Edits) > 0 {
		if e.OldString != "" || e.NewString != "" {
			return nil, core.Errorf(core.CodeInvalidParams, "pass either old_string/new_string or edits, not both")
		}
		ops := make([]textedit.Edit, len(e.Edits))
		for i, o := range e.Edits {
			ops[i] = textedit.Edit{Old: o.OldString, New: o.NewString, ReplaceAll: o.ReplaceAll, Fuzzy: o.FuzzyMatch, Threshold: o.FuzzyThreshold}
		}
		return ops, nil
	}
	return []textedit.Edit{{Old: e.OldString, New: e.NewString, ReplaceAll: e.ReplaceAll, Fuzzy: e.FuzzyMatch, Threshold: e.FuzzyThreshold}}, nil
}

// Run implements core.Command.
func (e *Edit) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	ops, err := e.ops()
	if err != nil {
		return nil, err
	}
	if _, err := recoverInterruptedPatches(ctx, env); err != nil {
		return nil, err
	}
	p, err := env.Resolve(e.FilePath)
	if err != nil {
		return nil, err
	}
	// Matching reads the file, and a no_match hint or a dry run would show what it
	// holds: a file the policy does not let the agent read is not edited either.
	if _, err := env.Authorize(ctx, core.Request{Capability: core.CapFSRead, Target: p.Abs, Summary: "read " + p.Abs + " to edit it"}); err != nil {
		return nil, err
	}
	// decision is asked once. The loop runs a second time only when a concurrent
	// writer got in between the read and the write; that time the read, match and
	// write all happen under the writers' lock, so it cannot be overtaken again.
	var decision *core.Decision
	locked := false
	for {
		f, fi, err := env.WS.OpenRegular(p)
		if err != nil {
			return e.missing(ctx, env, p, ops, err)
		}
		raw, text, format, err := e.load(env, p, f, fi, ops)
		if err != nil {
			return nil, err
		}
		newText, res, err := e.apply(p, text, format, ops)
		if err != nil {
			return nil, err
		}
		if newText == text {
			// Each edit changed something, and together they change nothing (sequential
			// edits that undo each other): rewriting the file would report a change.
			return nil, core.Errorf(core.CodeInvalidParams, "the %d edits together change nothing: the file would read as it does now; it was not rewritten", len(ops))
		}
		// As the file will end: an edit may take its final newline away or add one.
		res.FinalNewline = strings.HasSuffix(newText, "\n")
		newRaw := format.Encode(newText)
		res.BytesDelta = len(newRaw) - len(raw)
		result := &core.Result{}
		res.Diff = capDiff(env, "edit-diff", udiff.Unified("a"+p.Abs, "b"+p.Abs, text, newText), result)
		if !e.DryRun {
			if decision == nil {
				d, err := env.Authorize(ctx, core.Request{Capability: core.CapFSWrite, Target: p.Abs, Summary: fmt.Sprintf("edit %s (%d edits, %+d bytes)", p.Abs, len(ops), res.BytesDelta)})
				if err != nil {
					return nil, err
				}
				decision = &d
			}
			_, err := env.WS.WriteAtomic(p, newRaw, core.WriteOptions{Expect: core.ExpectContent(raw), OnWritten: recordWrite(env, newRaw), Locked: locked, Dir: decidedDir(env, p)})
			if core.IsConcurrentChange(err) && !locked {
				// Another process wrote the file since it was read here: apply the same
				// edits to what it holds now (the freshness check in load still guards
				// changes this session has not seen).
				unlock, lerr := env.WS.LockFor(p)
				if lerr != nil {
					return nil, lerr
				}
				defer unlock()
				locked = true
				continue
			}
			if err != nil {
				return nil, err
			}
			result.Meta = map[string]any{"decision": *decision}
		}
		result.Data = res
		return result, nil
	}
}

// missing answers for a file that could not be opened: an empty old_string creates
// it; otherwise not_found with similar paths.
func (e *Edit) missing(ctx context.Context, env *core.Env, p core.Path, ops []textedit.Edit, err error) (*core.Result, error) {
	ce := core.AsError(err)
	if ce.Code != core.CodeNotFound {
		return nil, ce
	}
	if len(ops) == 1 && ops[0].Old == "" {
		return e.create(ctx, env, p, ops[0].New)
	}
	msg := fmt.Sprintf("%s does not exist", p.Abs)
	if sims := similarPaths(env, p.Abs); len(sims) > 0 {
		msg += "; did you mean: " + strings.Join(sims, ", ") + "?"
	}
	return nil, core.Errorf(core.CodeNotFound, "%s (to create a file, pass an empty old_string, or use write)", msg)
}

// load reads the file and decodes it, refusing what edit must not touch: a file too
// large, binary, in an encoding it cannot write back byte for byte, changed since this
// session read it, or 8-bit text that a non-ASCII new_string would mix with UTF-8.
func (e *Edit) load(env *core.Env, p core.Path, f io.ReadCloser, fi fs.FileInfo, ops []textedit.Edit) ([]byte, string, textedit.Format, error) {
	raw, err := io.ReadAll(io.LimitReader(f, EditMaxFileBytes+1))
	f.Close()
	if err != nil {
		return nil, "", textedit.Format{}, core.Errorf(core.CodeIOError, "reading %s: %v", p.Abs, err)
	}
	if len(raw) > EditMaxFileBytes {
		return nil, "", textedit.Format{}, core.Errorf(core.CodeTooLarge, "%s is larger than %d MiB; edit it with bash tools (sed, a script) instead", p.Abs, EditMaxFileBytes>>20)
	}
	text, format := textedit.Decode(raw)
	if why := textfmt.BinaryReason(raw); why != "" {
		return nil, "", format, core.Errorf(core.CodeBinaryFile, "%s looks like a binary file (%s in its first 4 KB); edit changes text files only", p.Abs, why)
	}
	if !bytes.Equal(format.Encode(text), raw) {
		// Only possible for malformed UTF-16: refuse rather than rewrite bytes the edit
		// did not touch.
		return nil, "", format, core.Errorf(core.CodeBinaryFile, "%s is not valid %s, so editing it would change bytes outside the edit; fix its encoding first, or rewrite it with write", p.Abs, format.Encoding)
	}
	if err := checkStamp(env, core.StampOf(p.Abs, fi, raw), e.ExpectedSHA256); err != nil {
		return nil, "", format, err
	}
	if len(ops) == 1 && ops[0].Old == "" {
		return nil, "", format, core.Errorf(core.CodeInvalidParams, "%s already exists, and an empty old_string only creates a missing file; give the text to replace, or use write to replace the whole file", p.Abs)
	}
	if format.Encoding == textfmt.UTF8 && !utf8.ValidString(text) {
		for _, op := range ops {
			if !isASCII(op.New) {
				return nil, "", format, core.Errorf(core.CodeInvalidParams, "%s is not UTF-8 (it has bytes of an 8-bit encoding such as Latin-1), and new_string has non-ASCII characters, which would be written as UTF-8 and mix two encodings in one file; keep new_string ASCII, or convert the file to UTF-8 first (iconv -f latin1 -t utf-8)", p.Abs)
			}
		}
	}
	return raw, text, format, nil
}

// apply matches and applies the edits to the decoded text, with the strings brought
// into the file's line-ending convention first, and describes what was done.
func (e *Edit) apply(p core.Path, text string, format textedit.Format, ops []textedit.Edit) (string, EditResult, error) {
	normalized := make([]textedit.Edit, len(ops))
	for i, op := range ops {
		op.Old = format.Normalize(op.Old)
		op.New = format.Normalize(op.New)
		normalized[i] = op
	}
	newText, applied, err := applyEdits(text, normalized, e.Sequential)
	if err != nil {
		return "", EditResult{}, editFailure(p.Abs, err, len(ops) > 1)
	}
	res := EditResult{Path: p.Abs, DryRun: e.DryRun, Edits: applied, LineEnding: format.LineEnding, FinalNewline: format.FinalNewline, Encoding: format.Encoding}
	var simSum float64
	for _, a := range applied {
		if a.Stage == textedit.StageFuzzy {
			res.FuzzyCount++
			simSum += a.Similarity
		}
	}
	if res.FuzzyCount > 0 {
		res.FuzzyAvg = simSum / float64(res.FuzzyCount)
	}
	return newText, res, nil
}

func (e *Edit) create(ctx context.Context, env *core.Env, p core.Path, content string) (*core.Result, error) {
	res := EditResult{Path: p.Abs, Created: true, DryRun: e.DryRun, Edits: []textedit.Applied{{Stage: "create", Similarity: 1, Replacements: 1, Line: 1}}, BytesDelta: len(content), Encoding: "utf-8"}
	_, f := textedit.Decode([]byte(content))
	res.LineEnding, res.FinalNewline = f.LineEnding, f.FinalNewline
	result := &core.Result{}
	res.Diff = capDiff(env, "edit-diff", udiff.Unified("/dev/null", "b"+p.Abs, "", content), result)
	if !e.DryRun {
		d, err := env.Authorize(ctx, core.Request{Capability: core.CapFSWrite, Target: p.Abs, Summary: fmt.Sprintf("create %s (%d bytes)", p.Abs, len(content))})
		if err != nil {
			return nil, err
		}
		if _, err := env.WS.WriteAtomic(p, []byte(content), core.WriteOptions{CreateDirs: true, Expect: core.ExpectContent(nil), OnWritten: recordWrite(env, []byte(content)), Dir: decidedDir(env, p)}); err != nil {
			return nil, err
		}
		result.Meta = map[string]any{"decision": d}
	}
	result.Data = res
	return result, nil
}

// capDiff keeps the diff under EditMaxDiffBytes, spilling the whole of it when cut.
func capDiff(env *core.Env, spill, diff string, result *core.Result) string {
	if len(diff) <= EditMaxDiffBytes {
		return diff
	}
	result.Spilled(env.Session.Spill(spill, []byte(diff)))
	cut := strings.LastIndexByte(diff[:EditMaxDiffBytes], '\n') + 1
	return diff[:cut] + fmt.Sprintf("… [diff cut: %d more bytes; the whole diff is in output_path]\n", len(diff)-cut)
}

// applyEdits applies the edits to text: all matched against the original (overlaps
// refused), or in sequence, each to the result of the one before. Either way nothing is
// applied unless every edit matches.
func applyEdits(text string, edits []textedit.Edit, sequential bool) (string, []textedit.Applied, error) {
	if !sequential || len(edits) < 2 {
		return textedit.Apply(text, edits)
	}
	var all []textedit.Applied
	for i, op := range edits {
		next, applied, err := textedit.Apply(text, []textedit.Edit{op})
		if err != nil {
			var ee *textedit.EditError
			if errors.As(err, &ee) {
				ee.Index = i
				ee.Message = fmt.Sprintf("edit %d (applied to the result of the edits before it): ", i) + strings.TrimPrefix(ee.Message, "edit 0: ")
			}
			return "", nil, err
		}
		for _, a := range applied {
			a.Index = i
			all = append(all, a)
		}
		text = next
	}
	return text, all, nil
}

func editFailure(path string, err error, multi bool) error {
	var ee *textedit.EditError
	if !errors.As(err, &ee) {
		return core.Errorf(core.CodeInternal, "%v", err)
	}
	msg := ee.Message
	if !multi {
		msg = strings.TrimPrefix(msg, "edit 0: ")
	}
	msg = path + ": " + msg
	if multi {
		msg += " Nothing was changed: every edit must match before any is applied."
	}
	details := map[string]any{"edit_index": ee.Index}
	code := core.CodeInvalidParams
	if f := ee.Failure; f != nil {
		switch f.Kind {
		case "ambiguous":
			code = core.CodeAmbiguousMatch
			details["lines"] = f.Lines[:min(len(f.Lines), 100)] // the first 100; the message says how many
		default:
			code = core.CodeNoMatch
			if f.Nearest != nil {
				details["nearest"] = f.Nearest
			}
		}
	}
	return &core.Error{Code: code, Message: msg, Details: details}
}

// RenderText implements core.TextRenderer.
func (r EditResult) RenderText(p *core.Printer) {
	verb := "Edited"
	switch {
	case r.DryRun:
		verb = "Would edit"
	case r.Created:
		verb = "Created"
	}
	p.Printf("%s %s (%d edits, %+d bytes)\n", verb, p.Path(r.Path), len(r.Edits), r.BytesDelta)
	for _, a := range r.Edits {
		if a.Stage != textedit.StageExact && a.Stage != "create" {
			p.Printf("  edit %d matched at line %d by %s matching (%.0f%% similar)\n", a.Index, a.Line, a.Stage, a.Similarity*100)
		}
	}
	for _, line := range strings.SplitAfter(r.Diff, "\n") {
		switch {
		case strings.HasPrefix(line, "+") && !strings.HasPrefix(line, "+++"):
			p.Printf("%s", p.OK(line))
		case strings.HasPrefix(line, "-") && !strings.HasPrefix(line, "---"):
			p.Printf("%s", p.Match(line))
		default:
			p.Printf("%s", line)
		}
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
