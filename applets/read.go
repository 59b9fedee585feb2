package applets

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/textfmt"
)

// Limits of read, used by the code and quoted in the descriptions.
const (
	ReadDefaultLimit  = 2000    // lines returned when no range is given (reference 000)
	ReadMaxLineChars  = 2000    // longer lines are cut with a visible marker (reference 000)
	ReadDefaultMaxOut = 204800  // output cap in bytes (reference 002: 200 KB for read)
	readMaxKeptLine   = 1 << 20 // bytes of one line held in memory (and in the sidecar)
)

// Read reads a text file with numbered lines.
type Read struct {
	FilePath  string `json:"file_path" alias:"path,filePath,file,filename,absolute_path" arg:"" required:"" help:"the file to read, absolute or relative to the working directory"`
	Offset    int    `json:"offset" schema:"min=0" help:"number of lines to skip before the first line returned (0-based)"`
	Limit     int    `json:"limit" default:"2000" schema:"min=1" help:"maximum number of lines to return"`
	StartLine int    `json:"start_line" schema:"min=0" help:"first line to return, 1-based inclusive (0 = start of file); an alternative to offset"`
	EndLine   int    `json:"end_line" schema:"min=0" help:"last line to return, 1-based inclusive (0 = up to limit lines)"`
	ViewRange []int  `json:"view_range" type:"json" schema:"minItems=2,maxItems=2" help:"[first, last] line, 1-based inclusive; last -1 means end of file"`
	MaxBytes  int    `json:"max_bytes" default:"204800" schema:"min=1024" help:"output cap in bytes; past it the output is cut and the whole range goes to a sidecar file"`
}

// ReadResult is what read returns.
type ReadResult struct {
	Path       string `json:"path"`
	Content    string `json:"content"` // numbered lines, cat -n style
	StartLine  int    `json:"start_line"`
	EndLine    int    `json:"end_line"` // last line returned; start_line-1 when none
	TotalLines int    `json:"total_lines"`
	LineEnding string `json:"line_ending"` // lf, crlf, mixed, cr, none
	Encoding   string `json:"encoding"`    // utf-8, utf-8-bom, utf-16le, utf-16be, utf-32le, utf-32be
	CutLines   int    `json:"cut_lines,omitempty"`
	// InvalidBytes counts the bytes of the window that are not UTF-8 (an 8-bit encoding
	// such as Latin-1), or in UTF-16 and UTF-32 its code units that are not text, each
	// shown as U+FFFD.
	InvalidBytes int    `json:"invalid_bytes,omitempty"`
	EOF          bool   `json:"eof"`
	Note         string `json:"note"`
}

// readHashMaxBytes: larger files are stamped by their metadata unless it is racy (a
// variable so that tests can lower it).
var readHashMaxBytes int64 = 1 << 20

// readClock is the time a read starts, compared with the file's timestamps (a variable
// so that tests can read "later" than a file's ctime, which they cannot set).
var readClock = time.Now

// binaryExtensions are refused without looking at the content (reference 000). Built
// on first use: every applet's start-up would pay for it otherwise.
var binaryExtensions = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, e := range strings.Fields(`.zip .gz .tgz .bz2 .xz .zst .7z .rar .tar .jar .war .exe .dll .so .dylib .o .a .lib
		.class .pyc .pyo .wasm .png .jpg .jpeg .gif .bmp .ico .webp .tiff .psd .pdf .doc .docx .xls .xlsx .ppt .pptx
		.odt .mp3 .mp4 .m4a .wav .flac .ogg .avi .mov .mkv .webm .ttf .otf .woff .woff2 .bin .dat .db .sqlite .iso .dmg`) {
		m[e] = true
	}
	return m
})

// Run implements core.Command.
func (r *Read) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	first, last, err := r.window()
	if err != nil {
		return nil, err
	}
	started := readClock()
	p, f, fi, err := r.open(ctx, env)
	if err != nil {
		return nil, err
	}
	defer f.Close()

	// The stamp lets write and edit detect a changed file. Metadata is enough unless
	// the file changed moments ago (see core.FileStamp.NeedsHash); small files are
	// hashed anyway, which costs less than reading them and lets a touch pass.
	// Hashing a big file would cost more than reading its end (SHA-256 runs at about
	// 1.3 GB/s here, counting lines at several).
	stamp := core.MetaStamp(p.Abs, fi)
	hashed := fi.Size() <= readHashMaxBytes || stamp.NeedsHash(started)
	w := &readWindow{first: first, last: last, limit: r.Limit, maxBytes: r.MaxBytes, offsetIsLine: env.Dialect == DialectClaude,
		res: ReadResult{Path: p.Abs, StartLine: first}}
	var lineNo int
	if lm := loadLineMap(env, stamp, hashed); lm != nil {
		lineNo, err = w.readMapped(ctx, f, lm)
	} else {
		lineNo, err = w.readWhole(ctx, env, f, &stamp, hashed)
	}
	if err != nil && ctx.Err() != nil {
		return nil, core.Errorf(core.CodeInterrupted, "read of %s was interrupted", p.Abs)
	}
	if err != nil {
		return nil, err
	}
	res := w.finish(lineNo)
	result := &core.Result{Data: res}
	if w.cut || w.full != nil {
		if w.cut {
			next := res.EndLine // lines to skip; Claude Code's offset is the line itself
			if w.offsetIsLine {
				next++
			}
			res.Note += fmt.Sprintf(" (Output capped at %d bytes after line %d; read from offset=%d for the rest.)", r.MaxBytes, res.EndLine, next)
		}
		result.Data = res
		result.Spilled(env.Session.Spill("read", w.full.Bytes()))
	}
	_ = env.Session.RecordRead(stamp)
	return result, nil
}

// open resolves, authorizes and opens the file, with the hints a model needs when it
// is missing, a directory or binary by its name.
func (r *Read) open(ctx context.Context, env *core.Env) (core.Path, io.ReadCloser, fs.FileInfo, error) {
	p, err := env.ResolveRead(r.FilePath)
	if err != nil {
		return p, nil, nil, err
	}
	if _, err := env.Authorize(ctx, core.Request{Capability: core.CapFSRead, Target: p.Abs, Summary: "read " + p.Abs}); err != nil {
		return p, nil, nil, err
	}
	f, fi, err := env.WS.OpenRegular(p)
	if err != nil {
		e := core.AsError(err)
		if e.Code == core.CodeNotFound {
			msg := fmt.Sprintf("%s does not exist", p.Abs)
			if sims := similarPaths(env, p.Abs); len(sims) > 0 {
				msg += "; did you mean: " + strings.Join(sims, ", ") + "?"
			} else {
				msg += "; use glob to find the file"
			}
			return p, nil, nil, core.Errorf(core.CodeNotFound, "%s", msg)
		}
		if e.Code == core.CodeIsDirectory {
			return p, nil, nil, core.Errorf(core.CodeIsDirectory, "%s is a directory; use ls to list it, or glob/grep to search it", p.Abs)
		}
		return p, nil, nil, e
	}
	if binaryExtensions()[strings.ToLower(filepath.Ext(p.Abs))] {
		f.Close()
		return p, nil, nil, core.Errorf(core.CodeBinaryFile, "%s is a binary file (%s); read shows text only. Inspect it with bash (e.g. file, xxd, unzip -l) instead", p.Abs, filepath.Ext(p.Abs))
	}
	return p, f, fi, nil
}

// decodeText refuses a binary file and returns a reader of its text as UTF-8, without
// a byte order mark, and the file's encoding. A file whose first 4 KB end lines in a
// lone CR and never in LF (classic Mac OS, which edit also reads as CR lines) is read
// with each lone CR as a line break (crLines).
func decodeText(br *bufio.Reader, path string) (text *bufio.Reader, enc string, crOnly bool, err error) {
	head, _ := br.Peek(textfmt.SniffBytes)
	if why := textfmt.BinaryReason(head); why != "" {
		return nil, "", false, core.Errorf(core.CodeBinaryFile, "%s looks like a binary file (%s in its first 4 KB); read shows text only. Inspect it with bash (e.g. file, xxd) instead", path, why)
	}
	enc, bomLen := textfmt.Encoding(head)
	switch {
	case textfmt.Wide(enc):
		text = bufio.NewReaderSize(textfmt.NewWideReader(br, enc), 256<<10)
	default:
		if bomLen > 0 {
			_, _ = br.Discard(bomLen)
		}
		text = br
	}
	if start, _ := text.Peek(textfmt.SniffBytes); bytes.IndexByte(start, '\n') < 0 && bytes.IndexByte(start, '\r') >= 0 {
		return bufio.NewReaderSize(crLines{text}, 64<<10), enc, true, nil
	}
	return text, enc, false, nil
}

// crLines turns each lone CR of r into LF (a CR LF stays as it is), byte for byte, so
// line counts and offsets of a CR file are a LF file's.
type crLines struct{ r *bufio.Reader }

func (c crLines) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i := 0; i < n; i++ {
		if p[i] != '\r' {
			continue
		}
		if i+1 < n {
			if p[i+1] != '\n' {
				p[i] = '\n'
			}
		} else if next, perr := c.r.Peek(1); perr != nil || next[0] != '\n' {
			p[i] = '\n'
		}
	}
	return n, err
}

// skip skips n lines fast: it counts newlines in whole buffers, never splitting lines
// into strings (a far offset in a huge file costs one pass at memory speed), noting
// their line endings. It returns the number of lines skipped, fewer at the end of the
// file.
func (w *readWindow) skip(ctx context.Context, text *bufio.Reader, n int) (int, error) {
	lineNo := 0
	partial, prevCR := false, false
	for lineNo < n {
		if _, err := text.Peek(1); err != nil {
			if partial {
				lineNo++ // a last line without a newline
			}
			break
		}
		buf, _ := text.Peek(text.Buffered())
		consumed := 0
		if c := bytes.Count(buf, []byte{'\n'}); lineNo+c < n {
			// The whole buffer is before the window: count it in one vectorized pass.
			lineNo += c
			consumed = len(buf)
			crlf := bytes.Count(buf, []byte("\r\n"))
			if prevCR && buf[0] == '\n' {
				crlf++
			}
			w.sawCRLF = w.sawCRLF || crlf > 0
			w.sawLF = w.sawLF || c > crlf
		}
		for lineNo < n && consumed < len(buf) {
			j := bytes.IndexByte(buf[consumed:], '\n')
			if j < 0 {
				break
			}
			if cr := consumed+j > 0 && buf[consumed+j-1] == '\r' || consumed+j == 0 && prevCR; cr {
				w.sawCRLF = true
			} else {
				w.sawLF = true
			}
			consumed += j + 1
			lineNo++
		}
		if lineNo < n {
			consumed = len(buf)
		}
		partial = consumed > 0 && buf[consumed-1] != '\n'
		prevCR = consumed > 0 && buf[consumed-1] == '\r'
		_, _ = text.Discard(consumed)
		if ctx.Err() != nil {
			return lineNo, ctx.Err()
		}
	}
	return lineNo, nil
}

// readWindow is the window of lines read returns, built line by line: the numbered
// content under maxBytes, the untruncated copy for the sidecar once anything was cut,
// and the line endings seen.
type readWindow struct {
	first, last     int // 1-based; last 0 means to the limit
	limit, maxBytes int
	res             ReadResult
	out             bytes.Buffer
	full            *bytes.Buffer // the untruncated window, kept only once something was cut
	cut             bool          // maxBytes was reached
	bufSize         int           // of the read buffers
	sawCRLF, sawLF  bool
	crOnly          bool // the file's lines end in a lone CR (read as LF by crLines)
	// offsetIsLine: the caller's offset is the 1-based line to start at (Claude Code's
	// Read), not the number of lines to skip; the note's hints are in its terms.
	offsetIsLine bool
}

// collect reads the window's lines from text, which is at line lineNo, and returns the
// line number it stopped at.
func (w *readWindow) collect(text *bufio.Reader, lineNo int) int {
	for w.last == 0 || lineNo < w.last {
		line, dropped, err := readLongLine(text)
		if len(line) == 0 && err != nil {
			break
		}
		lineNo++
		if lineNo >= w.first && (w.last == 0 || lineNo <= w.last) && lineNo-w.first < w.limit {
			w.add(lineNo, line, dropped)
		}
		if err != nil {
			break
		}
		if lineNo-w.first+1 >= w.limit && lineNo >= w.first {
			break
		}
	}
	return lineNo
}

// readLongLine reads one line with its ending. Of a very long line (minified code, a
// one-line dump) it keeps at most readMaxKeptLine bytes and reports how many it
// dropped, so memory stays bounded whatever the line's length.
func readLongLine(text *bufio.Reader) (line []byte, dropped int, err error) {
	line, err = text.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, 0, err
	}
	long := append([]byte(nil), line...)
	for err == bufio.ErrBufferFull {
		line, err = text.ReadSlice('\n')
		room := max(readMaxKeptLine-len(long), 0)
		long = append(long, line[:min(room, len(line))]...)
		dropped += len(line) - min(room, len(line))
	}
	if dropped > 0 {
		// Keep the line ending visible to the line-ending bookkeeping; it is not one of
		// the line's bytes left out.
		long = bytes.TrimRight(long, "\r\n")
		if bytes.HasSuffix(line, []byte("\r\n")) {
			long = append(long, '\r', '\n')
			dropped -= min(2, dropped)
		} else if bytes.HasSuffix(line, []byte("\n")) {
			long = append(long, '\n')
			dropped -= min(1, dropped)
		}
	}
	return long, dropped, err
}

// add numbers one line of the window, cuts it past ReadMaxLineChars, and keeps it
// unless maxBytes is reached.
func (w *readWindow) add(lineNo int, line []byte, dropped int) {
	body := bytes.TrimSuffix(line, []byte("\n"))
	if len(body) < len(line) {
		if bytes.HasSuffix(body, []byte("\r")) {
			body = body[:len(body)-1]
			w.sawCRLF = true
		} else {
			w.sawLF = true
		}
	}
	s, invalid := textfmt.ShowInvalid(string(body))
	w.res.InvalidBytes += invalid
	shown := s
	if n := utf8.RuneCountInString(s); n > ReadMaxLineChars || dropped > 0 {
		more := fmt.Sprintf("%d more characters", n-ReadMaxLineChars)
		if dropped > 0 {
			more = fmt.Sprintf("%d more characters and %d more bytes; see it with bash, e.g. cut -c or head -c", n-ReadMaxLineChars, dropped)
		}
		shown = string([]rune(s)[:min(n, ReadMaxLineChars)]) + " … [line cut: " + more + "]"
		w.res.CutLines++
	}
	numbered := fmt.Sprintf("%6d\t%s\n", lineNo, shown)
	if !w.cut && w.out.Len()+len(numbered) > w.maxBytes {
		w.cut = true
	}
	if (w.cut || shown != s) && w.full == nil {
		// Every line shown so far was whole, so the sidecar starts as a copy.
		w.full = bytes.NewBuffer(append([]byte(nil), w.out.Bytes()...))
	}
	if w.full != nil {
		if dropped > 0 {
			// The sidecar keeps a line's first MiB too: it says so where it stops.
			fmt.Fprintf(w.full, "%6d\t%s … [line cut here too, after %d bytes: %d more bytes; see them with bash, e.g. cut -c or head -c]\n", lineNo, s, len(body), dropped)
		} else {
			fmt.Fprintf(w.full, "%6d\t%s\n", lineNo, s)
		}
	}
	if !w.cut {
		w.out.WriteString(numbered)
		w.res.EndLine = lineNo
	}
}

// countRest counts the lines after the window for the total (reading the rest also
// finishes the hash) without keeping them, and notes their line endings: the reported
// line ending describes the whole file, not just the window.
func (w *readWindow) countRest(ctx context.Context, text *bufio.Reader, lineNo int) (int, error) {
	rest := make([]byte, max(w.bufSize, 4096))
	lastByteNewline := true
	for {
		n, err := text.Read(rest)
		if n > 0 {
			lines := bytes.Count(rest[:n], []byte("\n"))
			crlf := bytes.Count(rest[:n], []byte("\r\n"))
			lineNo += lines
			lastByteNewline = rest[n-1] == '\n'
			w.sawCRLF = w.sawCRLF || crlf > 0
			w.sawLF = w.sawLF || lines > crlf
		}
		if err != nil {
			break
		}
		if ctx.Err() != nil {
			return lineNo, ctx.Err()
		}
	}
	if !lastByteNewline {
		lineNo++
	}
	return lineNo, nil
}

// finish completes the result once the file's total is known: content, end of file,
// line ending and the note.
func (w *readWindow) finish(total int) ReadResult {
	res := w.res
	res.TotalLines = total
	if res.EndLine == 0 {
		res.EndLine = w.first - 1
	}
	res.Content = w.out.String()
	res.EOF = res.EndLine >= res.TotalLines
	switch {
	case w.crOnly && w.sawLF && !w.sawCRLF:
		res.LineEnding = "cr"
	case w.sawCRLF && w.sawLF:
		res.LineEnding = "mixed"
	case w.sawCRLF:
		res.LineEnding = "crlf"
	case w.sawLF:
		res.LineEnding = "lf"
	default:
		res.LineEnding = "none"
	}
	res.Note = readNote(res, w.first, w.offsetIsLine)
	return res
}

// readNote tells the model where the window is in the file and how to read on.
func readNote(res ReadResult, first int, offsetIsLine bool) string {
	// The offset that starts at line n: lines skipped, or (offsetIsLine) n itself.
	offset := func(n int) int { return n - 1 }
	if offsetIsLine {
		offset = func(n int) int { return n }
	}
	var note string
	switch {
	case res.TotalLines == 0:
		note = "(The file is empty.)"
	case first > res.TotalLines:
		note = fmt.Sprintf("(The file has only %s; nothing at line %d. Use an offset up to %d.)", plural(res.TotalLines, "line"), first, offset(res.TotalLines))
	case res.EOF:
		note = fmt.Sprintf("(End of file: %s.)", plural(res.TotalLines, "line"))
	default:
		note = fmt.Sprintf("(Showing lines %d-%d of %d. Use offset=%d to read beyond line %d.)", first, res.EndLine, res.TotalLines, offset(res.EndLine+1), res.EndLine)
	}
	if res.CutLines > 0 {
		note += fmt.Sprintf(" (%d lines were longer than %d characters and were cut.)", res.CutLines, ReadMaxLineChars)
	}
	switch {
	case res.InvalidBytes > 0 && textfmt.Wide(res.Encoding):
		units := plural(res.InvalidBytes, "code unit") + " are"
		if res.InvalidBytes == 1 {
			units = "1 code unit is"
		}
		note += fmt.Sprintf(" (%s not %s text (a lone surrogate, or a last unit cut short) and shown as \uFFFD each: edit refuses to change this file, since writing it back would change them; repair it with bash (iconv -c) or rewrite it with write.)", units, strings.ToUpper(res.Encoding[:6]))
	case res.InvalidBytes > 0:
		verb := "bytes are"
		if res.InvalidBytes == 1 {
			verb = "byte is"
		}
		note += fmt.Sprintf(" (%d %s not UTF-8 (an 8-bit encoding such as Latin-1, or a two-byte one such as Shift-JIS) and shown as \uFFFD each: edit keeps such bytes but cannot match them, so start and end old_string at the text around them.)", res.InvalidBytes, verb)
	}
	return note
}

// window turns the accepted range spellings into a 1-based first line and an inclusive
// last line (0 = no bound other than limit).
func (r *Read) window() (first, last int, err error) {
	ranges := 0
	if r.Offset > 0 {
		ranges++
	}
	if r.StartLine > 0 || r.EndLine > 0 {
		ranges++
	}
	if len(r.ViewRange) > 0 {
		ranges++
	}
	if ranges > 1 {
		return 0, 0, core.Errorf(core.CodeInvalidParams, "give one way of choosing lines: offset+limit, start_line/end_line, or view_range")
	}
	first = r.Offset + 1
	if r.StartLine > 0 {
		first = r.StartLine
	}
	if r.EndLine > 0 {
		if r.EndLine < first {
			return 0, 0, core.Errorf(core.CodeInvalidParams, "end_line %d is before start_line %d", r.EndLine, first)
		}
		last = r.EndLine
	}
	if len(r.ViewRange) == 2 {
		if r.ViewRange[0] < 0 {
			return 0, 0, core.Errorf(core.CodeInvalidParams, "view_range [%d, %d] starts before line 1; lines count from 1: use [first, last] or [first, -1] (the end of the file)", r.ViewRange[0], r.ViewRange[1])
		}
		first = max(r.ViewRange[0], 1)
		if r.ViewRange[1] != -1 {
			if r.ViewRange[1] < first {
				return 0, 0, core.Errorf(core.CodeInvalidParams, "view_range [%d, %d] ends before it starts; use [first, last] or [first, -1]", r.ViewRange[0], r.ViewRange[1])
			}
			last = r.ViewRange[1]
		}
	}
	if last > 0 && last-first+1 > r.Limit && r.Limit == ReadDefaultLimit {
		r.Limit = last - first + 1 // an explicit range is not cut by the default limit
	}
	return first, last, nil
}

// RenderText implements core.TextRenderer.
func (r ReadResult) RenderText(p *core.Printer) {
	for _, line := range strings.SplitAfter(r.Content, "\n") {
		if line == "" {
			continue
		}
		num, rest, ok := strings.Cut(line, "\t")
		if ok {
			p.Printf("%s\t%s", p.LineNo(num), rest)
		} else {
			p.Printf("%s", line)
		}
	}
	p.Println(p.Dim(r.Note))
}

// plural is n with word in the singular or (-s, -y to -ies) plural form.
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if stem, ok := strings.CutSuffix(word, "y"); ok {
		return strconv.Itoa(n) + " " + stem + "ies"
	}
	return strconv.Itoa(n) + " " + word + "s"
}
