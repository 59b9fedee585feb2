package applets

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/textfmt"
)

// A line map remembers where lines are in a big UTF-8 file, so that a later read of
// its end seeks instead of counting every line again: marks of (byte offset, newlines
// before it) about every MiB, the total line count and the line endings. It is trusted
// on the same terms as the conflict stamp, by metadata that is not racy (size, mtime,
// ctime, inode, device all equal), and it lives in the session's state.
//
// Variables so that tests can map small files.
var (
	lineMapMinBytes int64 = 4 << 20 // smaller files are counted in a few milliseconds
	lineMapMinGap   int64 = 1 << 20 // marks are at least this far apart...
	lineMapMarks    int64 = 2048    // ...and at most this many (about 60 KB of JSON)
)

// lineMarkEvery is the spacing of marks for a file of size bytes.
func lineMarkEvery(size int64) int64 {
	return max(lineMapMinGap, size/lineMapMarks)
}

type lineMark struct {
	Offset int64 `json:"offset"`
	Lines  int   `json:"lines"` // newlines before Offset
}

type lineMap struct {
	Stamp core.FileStamp `json:"stamp"`
	Marks []lineMark     `json:"marks"`
	Total int            `json:"total_lines"`
	CRLF  bool           `json:"crlf"`
	LF    bool           `json:"lf"`
}

func lineMapName(abs string) string {
	sum := sha256.Sum256([]byte(abs))
	return "linemaps/" + hex.EncodeToString(sum[:16]) + ".json"
}

// loadLineMap returns the session's line map of the file, or nil when there is none
// that this version of the file can trust.
func loadLineMap(env *core.Env, st core.FileStamp, hashed bool) *lineMap {
	if hashed || st.Size < lineMapMinBytes || st.Inode == 0 {
		return nil
	}
	var lm lineMap
	if err := env.Session.LoadJSON(lineMapName(st.Path), &lm); err != nil || lm.Stamp.Path != st.Path {
		return nil
	}
	if lm.Stamp.Inode == 0 || lm.Stamp.CTime.IsZero() || !lm.Stamp.SameMetadata(st) {
		return nil
	}
	prev := lineMark{}
	for _, m := range lm.Marks {
		if m.Offset <= prev.Offset || m.Offset > st.Size || m.Lines < prev.Lines || m.Lines > lm.Total {
			return nil // not a map this code wrote
		}
		prev = m
	}
	return &lm
}

// markBefore returns the last mark with fewer than n newlines before it: reading on
// from it, the n-th newline is still ahead.
func (lm *lineMap) markBefore(n int) (lineMark, bool) {
	best, ok := lineMark{}, false
	for _, m := range lm.Marks {
		if m.Lines >= n {
			break
		}
		best, ok = m, true
	}
	return best, ok
}

// lineMarker passes a file's bytes through and notes a mark about every `every` bytes.
type lineMarker struct {
	r      io.Reader
	every  int64
	off    int64
	lines  int
	marks  []lineMark
	failed bool
}

func (m *lineMarker) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	m.lines += bytes.Count(p[:n], []byte{'\n'})
	m.off += int64(n)
	if n > 0 && (len(m.marks) == 0 && m.off >= m.every || len(m.marks) > 0 && m.off-m.marks[len(m.marks)-1].Offset >= m.every) {
		m.marks = append(m.marks, lineMark{Offset: m.off, Lines: m.lines})
	}
	if err != nil && err != io.EOF {
		m.failed = true
	}
	return n, err
}

// readMapped reads the window with the help of a line map: from the last mark before
// it, and no further than its end, since the map knows the total and the line endings.
func (w *readWindow) readMapped(ctx context.Context, f io.Reader, lm *lineMap) (int, error) {
	text, enc, crOnly, err := decodeText(bufio.NewReaderSize(f, 64<<10), lm.Stamp.Path)
	if err != nil {
		return 0, err
	}
	w.res.Encoding = enc
	if crOnly {
		// No map is made of a CR file (its marks count LF lines): this one is not its
		// own, so the file is counted from the top.
		w.crOnly = true
		n, err := w.skip(ctx, text, w.first-1)
		if err == nil {
			n = w.collect(text, n)
			n, err = w.countRest(ctx, text, n)
		}
		return n, err
	}
	lineNo := 0
	// Without a seekable file the count starts at the top, only slower.
	if mark, ok := lm.markBefore(w.first - 1); ok {
		if s, ok := f.(io.Seeker); ok {
			if _, err := s.Seek(mark.Offset, io.SeekStart); err != nil {
				return 0, core.Errorf(core.CodeIOError, "cannot seek in %s: %v", lm.Stamp.Path, err)
			}
			text = bufio.NewReaderSize(f, 64<<10)
			lineNo = mark.Lines
		}
	}
	skipped, err := w.skip(ctx, text, w.first-1-lineNo)
	if err != nil {
		return 0, err
	}
	w.collect(text, lineNo+skipped)
	w.sawCRLF = w.sawCRLF || lm.CRLF
	w.sawLF = w.sawLF || lm.LF
	return lm.Total, nil
}

// readWhole reads the window and counts the whole file, hashing it for the stamp when
// hashed, and leaves a line map of a big UTF-8 file for the next read.
func (w *readWindow) readWhole(ctx context.Context, env *core.Env, f io.Reader, stamp *core.FileStamp, hashed bool) (int, error) {
	var src = f
	hasher := sha256.New()
	if hashed {
		src = io.TeeReader(src, hasher)
	}
	var marker *lineMarker
	if !hashed && stamp.Size >= lineMapMinBytes && stamp.Inode != 0 {
		marker = &lineMarker{r: src, every: lineMarkEvery(stamp.Size)}
		src = marker
	}
	// Buffers sized to the file: a small file's read does not pay for 512 KB of them.
	w.bufSize = int(min(max(stamp.Size+1, 16<<10), 256<<10))
	br := bufio.NewReaderSize(src, w.bufSize)
	text, enc, crOnly, err := decodeText(br, stamp.Path)
	if err != nil {
		return 0, err
	}
	w.res.Encoding, w.crOnly = enc, crOnly
	lineNo, err := w.skip(ctx, text, w.first-1)
	if err == nil {
		lineNo = w.collect(text, lineNo)
		lineNo, err = w.countRest(ctx, text, lineNo)
	}
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, br) // the hash covers the whole file even for UTF-16
	if hashed {
		stamp.SHA256 = hex.EncodeToString(hasher.Sum(nil))
	}
	if marker != nil && !marker.failed && !crOnly && marker.off == stamp.Size && (enc == textfmt.UTF8 || enc == textfmt.UTF8BOM) && unchangedSince(f, *stamp) {
		_ = env.Session.SaveRecord(lineMapName(stamp.Path), lineMap{Stamp: *stamp, Marks: marker.marks, Total: lineNo, CRLF: w.sawCRLF, LF: w.sawLF})
	}
	return lineNo, nil
}

// unchangedSince reports whether the open file still has the stamp's metadata: a map of
// a file that changed while it was counted would be wrong.
func unchangedSince(f io.Reader, st core.FileStamp) bool {
	s, ok := f.(interface{ Stat() (fs.FileInfo, error) })
	if !ok {
		return false
	}
	fi, err := s.Stat()
	return err == nil && core.MetaStamp(st.Path, fi).SameMetadata(st)
}
