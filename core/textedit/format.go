// Package textedit finds and replaces text the way a model means it, not only the way it
// typed it. A file is decoded into LF text plus its Format (BOM, CRLF, final newline), so
// a CRLF file matches LF strings and is written back CRLF. Matching runs in stages:
// exact; whitespace-normalised (runs of blanks, tabs and newlines compare as one space,
// and the replacement is re-indented to the matched region); and, when asked, Levenshtein
// fuzzy matching over line windows, with candidate windows chosen by a sliding count of
// matching line hashes and a banded, early-exit distance check so that a 30-line needle
// in a 10 MB file takes milliseconds. Every stage demands a unique match unless the
// caller asks for all of them; a miss reports the nearest region so the model can
// correct itself.
package textedit

import (
	"bytes"
	"strings"
)

// Format is how a file's text is stored on disk.
type Format struct {
	BOM  bool // UTF-8 byte order mark
	CRLF bool // every line ends in CRLF (converted to LF in Text, back on Encode)
}

// Decode splits raw file bytes into LF text and its format. Mixed line endings are left
// as they are (no conversion), so nothing is rewritten that the edit did not touch.
func Decode(b []byte) (string, Format) {
	var f Format
	if bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}) {
		f.BOM = true
		b = b[3:]
	}
	crlf := bytes.Count(b, []byte("\r\n"))
	lf := bytes.Count(b, []byte("\n"))
	if crlf > 0 && crlf == lf {
		f.CRLF = true
		return strings.ReplaceAll(string(b), "\r\n", "\n"), f
	}
	return string(b), f
}

// Encode turns LF text back into the file's format.
func (f Format) Encode(text string) []byte {
	if f.CRLF {
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	if f.BOM {
		return append([]byte{0xEF, 0xBB, 0xBF}, text...)
	}
	return []byte(text)
}

// Normalize brings a model's string into the text's convention (LF when the file was
// CRLF), so CRLF in a request matches a CRLF file either way.
func (f Format) Normalize(s string) string {
	if f.CRLF {
		return strings.ReplaceAll(s, "\r\n", "\n")
	}
	return s
}
