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
//     Lines the edit changes or deletes must each stand clearly for their file line
//     (similar, and no other line of the window more so), and a change is made to
//     the file's line, not old_string's copy of it, or refused (fuzzy.go).
//
// Every stage demands a unique match unless the caller asks for all of them (fuzzy
// always demands a unique best). A miss reports the nearest region, whitespace made
// visible, so the model can correct itself. Apply plans up to MaxEdits edits against
// the original text and applies them only when all match and none overlap.
package textedit

import (
	"bytes"
	"encoding/binary"
	"io"
	"strings"
	"unicode/utf16"

	"github.com/agentbox/agentbox/core/textfmt"
)

// Format is how a file's text is stored on disk.
type Format struct {
	BOM      bool   // a byte order mark (UTF-8's, or UTF-16's)
	CRLF     bool   // every line ends in CRLF (converted to LF in Text, back on Encode)
	CR       bool   // every line ends in a lone CR (classic Mac OS; the same conversion)
	Encoding string // "utf-8", "utf-16le", "utf-16be", "utf-32le" or "utf-32be"
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
	case textfmt.UTF16LE, textfmt.UTF16BE, textfmt.UTF32LE, textfmt.UTF32BE:
		// A code unit that is not text (a lone surrogate, an odd last byte) becomes a
		// byte that is not UTF-8, which Encode cannot give back: the caller, comparing,
		// sees that the file does not round-trip.
		f.BOM = true
		f.Encoding = enc
		b, _ = io.ReadAll(textfmt.NewWideReader(bytes.NewReader(b), enc))
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
	if textfmt.Wide(f.Encoding) {
		return encodeWide(text, f.Encoding)
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

// encodeWide writes text as UTF-16 or UTF-32 (enc) with a byte order mark.
func encodeWide(text string, enc string) []byte {
	big := enc == textfmt.UTF16BE || enc == textfmt.UTF32BE
	var units []uint32
	if enc == textfmt.UTF32LE || enc == textfmt.UTF32BE {
		units = append(units, 0xFEFF)
		for _, r := range text {
			units = append(units, uint32(r))
		}
		out := make([]byte, 0, 4*len(units))
		for _, u := range units {
			if big {
				out = binary.BigEndian.AppendUint32(out, u)
			} else {
				out = binary.LittleEndian.AppendUint32(out, u)
			}
		}
		return out
	}
	out := make([]byte, 0, 2+2*len(text))
	for _, u := range utf16.Encode([]rune("\ufeff" + text)) {
		if big {
			out = binary.BigEndian.AppendUint16(out, u)
		} else {
			out = binary.LittleEndian.AppendUint16(out, u)
		}
	}
	return out
}
