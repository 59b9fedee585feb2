package applets

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/textedit"
	"github.com/agentbox/agentbox/core/textfmt"
)

// Write creates or overwrites a file atomically.
type Write struct {
	FilePath          string  `json:"file_path" alias:"path,filePath,file,filename" arg:"" required:"" help:"the file to write, absolute or relative to the working directory"`
	Content           *string `json:"content" alias:"contents,text,file_text" schema:"required" help:"the complete new content of the file (in shell mode, read from stdin when --content is not given)"`
	CreateDirectories bool    `json:"create_directories" alias:"create_dirs" default:"true" negatable:"" help:"create missing parent directories"`
	ExpectedSHA256    string  `json:"expected_sha256" schema:"pattern=^[0-9a-f]{64}$" help:"refuse to overwrite unless the file's current SHA-256 is this (protection for callers without a session)"`
	KeepFormat        bool    `json:"keep_format" default:"true" negatable:"" help:"overwriting, keep the file's UTF-16 encoding and BOM, and its CRLF (or CR) line endings when content's lines end in plain LF; false writes content byte for byte"`
}

// WriteResult is what write returns.
type WriteResult struct {
	Path    string `json:"path"`
	Created bool   `json:"created"`
	Bytes   int    `json:"bytes"`
	SHA256  string `json:"sha256"`
	// LineEnding and Encoding describe the bytes written (as read and edit report them);
	// KeptFormat: content was converted to the replaced file's line endings, BOM or
	// encoding (keep_format).
	LineEnding string `json:"line_ending"`
	Encoding   string `json:"encoding"`
	KeptFormat bool   `json:"kept_format,omitempty"`
}

// writeKeepMaxBytes bounds the replaced file read to learn its format; a larger one is
// overwritten with content as given.
const writeKeepMaxBytes = 64 << 20

// keptFormat returns content in the format of the file it replaces, and whether that
// changed anything: its encoding (UTF-16) and BOM always; its line endings where
// content's lines end in plain LF (content with a CR of its own chose its endings), CRLF
// where most of the file's lines end so (one stray LF line does not turn a Windows file
// into a Unix one), CR where all do.
func keptFormat(env *core.Env, p core.Path, fi fs.FileInfo, content []byte) ([]byte, bool) {
	if fi.Size() > writeKeepMaxBytes {
		return content, false
	}
	old, err := env.WS.ReadFile(p)
	if err != nil {
		return content, false
	}
	_, format := textedit.Decode(old)
	utf16 := format.Encoding != textfmt.UTF8
	if !utf16 && textfmt.BinaryReason(old) != "" {
		return content, false
	}
	if format.LineEnding == "mixed" && !utf16 {
		crlf, lf := bytes.Count(old, []byte("\r\n")), bytes.Count(old, []byte("\n"))
		format.CRLF = 2*crlf > lf
	}
	text := strings.TrimPrefix(string(content), "\uFEFF") // the format's BOM, if it has one
	if strings.ContainsRune(text, '\r') {
		format.CRLF, format.CR = false, false
	}
	if !format.BOM && !utf16 && len(text) < len(content) {
		text = string(content) // content's own BOM, in a file that had none
	}
	out := format.Encode(text)
	return out, !bytes.Equal(out, content)
}

// ReadShellInput implements core.ShellInput: `agentbox write f.txt < content`.
func (w *Write) ReadShellInput(stdin io.Reader, isTerminal bool) error {
	if w.Content != nil || stdin == nil {
		return nil
	}
	if isTerminal {
		return core.Errorf(core.CodeInvalidParams, "no content: pass --content TEXT or pipe the content on stdin (agentbox write FILE < source)")
	}
	b, err := io.ReadAll(io.LimitReader(stdin, core.MaxRequestBytes*16+1))
	if err != nil {
		return core.Errorf(core.CodeIOError, "reading the content from stdin: %v", err)
	}
	s := string(b)
	w.Content = &s
	return nil
}

// Run implements core.Command.
func (w *Write) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	if w.Content == nil {
		return nil, core.Errorf(core.CodeInvalidParams, "content is missing; pass the complete new content of the file (an empty string makes an empty file)")
	}
	content := []byte(*w.Content)
	if _, err := recoverInterruptedPatches(ctx, env); err != nil {
		return nil, err
	}
	p, err := env.Resolve(w.FilePath)
	if err != nil {
		return nil, err
	}
	if w.ExpectedSHA256 != "" {
		// Comparing reads the file: a conflict or a success would tell whether a guess
		// of a file the agent may not read is right.
		if _, err := env.Authorize(ctx, core.Request{Capability: core.CapFSRead, Target: p.Abs, Summary: "read " + p.Abs + " to compare it with expected_sha256"}); err != nil {
			return nil, err
		}
	}
	fi, statErr := env.WS.Stat(p)
	exists := statErr == nil
	if exists && fi.IsDir() {
		return nil, core.Errorf(core.CodeIsDirectory, "%s is a directory; pass the path of a file inside it", p.Abs)
	}
	if statErr != nil && core.AsError(statErr).Code != core.CodeNotFound {
		return nil, statErr
	}
	verb := "create"
	if exists {
		verb = "overwrite"
	}
	d, err := env.Authorize(ctx, core.Request{Capability: core.CapFSWrite, Target: p.Abs, Summary: fmt.Sprintf("%s %s (%d bytes)", verb, p.Abs, len(content))})
	if err != nil {
		return nil, err
	}
	expect := core.ExpectContent(nil)
	if exists || w.ExpectedSHA256 != "" {
		if expect, err = checkUnchanged(env, p, w.ExpectedSHA256); err != nil {
			return nil, err
		}
	}
	kept := false
	if exists && w.KeepFormat {
		content, kept = keptFormat(env, p, fi, content)
	}
	info, err := env.WS.WriteAtomic(p, content, core.WriteOptions{CreateDirs: w.CreateDirectories, Expect: expect, OnWritten: recordWrite(env, content), Dir: decidedDir(env, p)})
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(content)
	_, format := textedit.Decode(content)
	enc := format.Encoding
	if format.BOM && enc == textfmt.UTF8 {
		enc = textfmt.UTF8BOM
	}
	return &core.Result{
		Data: WriteResult{Path: info.Target.Abs, Created: info.Created, Bytes: len(content), SHA256: hex.EncodeToString(sum[:]),
			LineEnding: format.LineEnding, Encoding: enc, KeptFormat: kept},
		Meta: map[string]any{"decision": d},
	}, nil
}

// recordWrite stamps the content a write leaves as read by this session (what the
// caller wrote, it has seen), under the writer's lock.
func recordWrite(env *core.Env, content []byte) func(core.Path, fs.FileInfo) {
	return func(target core.Path, fi fs.FileInfo) {
		_ = env.Session.RecordRead(core.StampOf(target.Abs, fi, content))
	}
}

// checkUnchanged refuses a write when the file changed since this session read it, or
// when its hash differs from the caller's expectation. It returns what the write must
// still find under the directory lock.
func checkUnchanged(env *core.Env, p core.Path, expected string) (core.Expectation, error) {
	f, fi, err := env.WS.OpenRegular(p)
	if err != nil {
		if core.AsError(err).Code == core.CodeNotFound && expected != "" {
			return core.Expectation{}, core.Errorf(core.CodeConflict, "%s does not exist, but expected_sha256 was given; read the file again (or drop expected_sha256 to create it)", p.Abs)
		}
		if core.AsError(err).Code == core.CodeNotFound {
			return core.ExpectContent(nil), nil
		}
		return core.Expectation{}, err
	}
	defer f.Close()
	if last, ok, _ := env.Session.LastRead(p.Abs); expected == "" && ok && last.SHA256 == "" {
		// read stamped this file by its metadata; hashing it would prove nothing more.
		return core.Expectation{}, checkStamp(env, core.MetaStamp(p.Abs, fi), "")
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return core.Expectation{}, core.Errorf(core.CodeIOError, "reading %s to check it: %v", p.Abs, err)
	}
	current := core.MetaStamp(p.Abs, fi)
	current.SHA256 = hex.EncodeToString(h.Sum(nil))
	return core.Expectation{Set: true, SHA256: current.SHA256}, checkStamp(env, current, expected)
}

// checkStamp compares a file's current stamp with the caller's expected hash and with
// what this session last saw of it.
func checkStamp(env *core.Env, current core.FileStamp, expected string) error {
	if expected != "" && !strings.EqualFold(expected, current.SHA256) {
		// The current hash is not shown: for a file the agent may not read it would be
		// an oracle for its content.
		return core.Errorf(core.CodeConflict, "%s does not have the expected SHA-256 %s: it changed since you read it; read it again and redo the change", current.Path, expected)
	}
	return env.Session.CheckFresh(current)
}

// RenderText implements core.TextRenderer.
func (r WriteResult) RenderText(p *core.Printer) {
	verb := "Overwrote"
	if r.Created {
		verb = "Created"
	}
	kept := ""
	if r.KeptFormat {
		kept = fmt.Sprintf(", %s %s kept", r.Encoding, r.LineEnding)
	}
	p.Printf("%s %s (%d bytes%s)\n", verb, p.Path(r.Path), r.Bytes, kept)
}

// decidedDir is the real folder a write of p lands in now, taken right after the write
// was decided: WriteAtomic then writes there or nowhere, though a link on the way be
// swapped meanwhile. "" where the folder does not exist yet.
func decidedDir(env *core.Env, p core.Path) string {
	d, err := env.WS.RealDir(p)
	if err != nil {
		return ""
	}
	return d
}
