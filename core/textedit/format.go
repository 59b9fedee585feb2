// Package textedit finds and replaces text the way a model means it, not only the way it
// typed it. A file is decoded into LF text plus its Format (BOM, encoding, line ending,
// final newline), so a CRLF file matches LF strings and is written back CRLF; a file of
// mixed endings is left unconverted, and the line breaks a replacement brings in take
// the endings of the lines they replace or land in (fitEndings).
//
// Matching runs in stages, each only when the previous found nothing:
//   - exact;
//   - whitespace-normalised: runs of blanks and tabs compare as one space (so
//     indentation, trailing blanks and CRLF do not matter), never splitting a word; a
//     run's line breaks must be the same in number, so lines are never joined or split
//     and blank lines count; indentation may differ only by one change made to every
//     line (a shift, tabs for spaces), so a line nested differently is no match. It
//     anchors on the needle's longest token and walks outwards, so a 10 MB file is not
//     copied. The match is widened to whole lines and the replacement moved from the
//     needle's indentation to the file's (indent.go);
//   - fuzzy (when asked): Levenshtein similarity of line windows, lines compared without
//     indentation. Candidate windows are ranked by the share of their 3-grams found in
//     the needle (one pass over the file with a 64 Ki-bit set, then a sliding sum over
//     lines), which still finds the region when every needle line has a typo; the best
//     few go through a banded, early-exit distance check whose bound tightens as better
//     windows turn up. A 30-line needle in a 10 MB file takes tens of milliseconds.
//
// Every stage demands a unique match unless the caller asks for all of them (fuzzy
// always demands a unique best). A miss reports the nearest region, whitespace made
// visible, so the model can correct itself. Apply plans up to MaxEdits edits against
// the original text and applies them only when all match and none overlap.
package textedit

import (
	"bytes"
	"strings"
	"unicode/utf16"

	"github.com/agentbox/agentbox/core/textfmt"
)

// Format is how a file's text is stored on disk.
type Format struct {
	BOM      bool   // a byte order mark (UTF-8's, or UTF-16's)
	CRLF     bool   // every line ends in CRLF (converted to LF in Text, back on Encode)
	CR       bool   // every line ends in a lone CR (classic Mac OS; the same conversion)
	Encoding string // "utf-8", "utf-16le" or "utf-16be"
	// LineEnding names what the file uses: "lf", "crlf", "cr", "mixed" (left as it is),
	// or "none" for a file without line breaks.
	LineEnding string
	// FinalNewline: the file ends with a line break. Edits keep it as it is, since the
	// text keeps it.
	FinalNewline bool
}

// Decode splits raw file bytes into LF text and its format. Mixed line endings are left
// as they are (no conversion), so nothing is rewritten that the edit did not touch.
func Decode(b []byte) (string, Format) {
	f := Format{Encoding: textfmt.UTF8}
	switch enc, bomLen := textfmt.Encoding(b); enc {
	case textfmt.UTF8BOM:
		f.BOM = true
		b = b[bomLen:]
	case textfmt.UTF16LE, textfmt.UTF16BE:
		if len(b)%2 != 0 {
			break // not UTF-16 after all: kept as bytes, so it round-trips
		}
		f.BOM = true
		f.Encoding, b = decodeUTF16(b)
	}
	crlf := bytes.Count(b, []byte("\r\n"))
	lf := bytes.Count(b, []byte("\n"))
	f.FinalNewline = bytes.HasSuffix(b, []byte("\n"))
	switch {
	case lf == 0 && bytes.IndexByte(b, '\r') >= 0:
		f.LineEnding, f.CR = "cr", true
		f.FinalNewline = bytes.HasSuffix(b, []byte("\r"))
		return strings.ReplaceAll(string(b), "\r", "\n"), f
	case lf == 0:
		f.LineEnding = "none"
	case crlf == lf:
		f.LineEnding = "crlf"
	case crlf == 0:
		f.LineEnding = "lf"
	default:
		f.LineEnding = "mixed"
	}
	if crlf > 0 && crlf == lf {
		f.CRLF = true
		return strings.ReplaceAll(string(b), "\r\n", "\n"), f
	}
	return string(b), f
}

// Encode turns LF text back into the file's format.
func (f Format) Encode(text string) []byte {
	switch {
	case f.CRLF:
		text = strings.ReplaceAll(text, "\n", "\r\n")
	case f.CR:
		text = strings.ReplaceAll(text, "\n", "\r")
	}
	if f.Encoding == "utf-16le" || f.Encoding == "utf-16be" {
		return encodeUTF16(text, f.Encoding == "utf-16be")
	}
	if f.BOM {
		return append([]byte{0xEF, 0xBB, 0xBF}, text...)
	}
	return []byte(text)
}

// Normalize brings a model's string into the text's convention (LF when the file was
// CRLF), so CRLF in a request matches a CRLF file either way.
func (f Format) Normalize(s string) string {
	if f.LineEnding == "mixed" {
		return s
	}
	// A CRLF file's text is LF; in an LF file a CRLF the model sent is its own noise.
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if f.CR {
		s = strings.ReplaceAll(s, "\r", "\n") // a CR file's text is LF too
	}
	return s
}

// decodeUTF16 turns UTF-16 with a byte order mark into UTF-8 (without the mark).
func decodeUTF16(b []byte) (string, []byte) {
	big := b[0] == 0xFE
	units := make([]uint16, 0, len(b)/2-1)
	for i := 2; i+1 < len(b); i += 2 {
		if big {
			units = append(units, uint16(b[i])<<8|uint16(b[i+1]))
		} else {
			units = append(units, uint16(b[i+1])<<8|uint16(b[i]))
		}
	}
	enc := "utf-16le"
	if big {
		enc = "utf-16be"
	}
	return enc, []byte(string(utf16.Decode(units)))
}

// encodeUTF16 writes text as UTF-16 with a byte order mark.
func encodeUTF16(text string, big bool) []byte {
	units := utf16.Encode([]rune(text))
	out := make([]byte, 0, 2+2*len(units))
	if big {
		out = append(out, 0xFE, 0xFF)
	} else {
		out = append(out, 0xFF, 0xFE)
	}
	for _, u := range units {
		if big {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}
