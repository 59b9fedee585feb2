// Package textfmt is agentbox's one answer to "what is in this file": its encoding,
// told by its byte order mark, and whether it is binary. read, edit and patch all ask
// it, so a file read shows as text is a file edit and patch may change, and a file
// one of them calls binary the others call binary too.
//
// Binary means what reference 000's read test means: in the first SniffBytes after the
// byte order mark, a NUL byte, or more than 30% of the characters control characters
// or invalid UTF-8. UTF-16 and UTF-32 with a byte order mark are text (NUL bytes are
// half or more of their bytes); without one, and every other encoding, a file is judged
// as bytes.
package textfmt

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SniffBytes is how much of a file's start the tests look at.
const SniffBytes = 4096

// Encodings a file can have.
const (
	UTF8    = "utf-8"
	UTF8BOM = "utf-8-bom"
	UTF16LE = "utf-16le"
	UTF16BE = "utf-16be"
	UTF32LE = "utf-32le"
	UTF32BE = "utf-32be"
)

// Wide reports whether enc is UTF-16 or UTF-32: text of two- or four-byte code units
// after a byte order mark, which only edit and write (besides read) can keep.
func Wide(enc string) bool {
	return enc == UTF16LE || enc == UTF16BE || enc == UTF32LE || enc == UTF32BE
}

// Encoding tells a file's encoding from its first bytes and how many of them are the
// UTF-8 byte order mark (the UTF-16 and UTF-32 decoders consume their own). FF FE 00 00
// is UTF-32's mark, not UTF-16's followed by a NUL character, which no text starts with.
func Encoding(head []byte) (enc string, bomLen int) {
	switch {
	case bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}):
		return UTF8BOM, 3
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE, 0, 0}):
		return UTF32LE, 0
	case bytes.HasPrefix(head, []byte{0, 0, 0xFE, 0xFF}):
		return UTF32BE, 0
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}):
		return UTF16LE, 0
	case bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		return UTF16BE, 0
	}
	return UTF8, 0
}

// BinaryReason says why a file whose first bytes are head is binary ("a NUL byte",
// "45% non-printable characters"), or "" for text. Only the first SniffBytes count.
func BinaryReason(head []byte) string {
	enc, bomLen := Encoding(head)
	if Wide(enc) {
		return ""
	}
	head = head[bomLen:min(len(head), bomLen+SniffBytes)]
	if len(head) == 0 {
		return ""
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return "a NUL byte"
	}
	invalid, control, total := 0, 0, 0
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		i += size
		total++
		if r == utf8.RuneError && size == 1 {
			if i > len(head)-4 { // a character cut by the window's end
				continue
			}
			invalid++
			continue
		}
		if r < 0x20 && r != '\n' && r != '\r' && r != '\t' && r != '\f' && r != '\v' && r != 0x1b {
			control++
		}
	}
	if nonPrintable := invalid + control; nonPrintable*100 > total*30 && (control*100 > total*30 || !LegacyMultiByte(string(head))) {
		// Japanese or Chinese text in Shift-JIS, GBK or EUC is all bytes that are not
		// UTF-8, and no binary file follows their grammars for 4 KB.
		return strconv.Itoa(nonPrintable*100/total) + "% non-printable characters"
	}
	return ""
}

// Replacement is what a byte that is not UTF-8 is shown as.
const Replacement = "\uFFFD"

// ShowInvalid returns s with each byte that is not part of valid UTF-8 replaced by one
// U+FFFD, as encoding/json writes such bytes: read, edit's diffs and grep's envelopes
// then show the same text. n counts the bytes replaced.
func ShowInvalid(s string) (shown string, n int) {
	if utf8.ValidString(s) {
		return s, 0
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(Replacement)
			n++
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String(), n
}

// The byte grammars of the legacy multi-byte encodings (Shift-JIS, GBK/GB18030/Big5,
// EUC). Each walks text, calls inside (when not nil) with every offset that falls
// inside a character (after its first byte), and reports whether the whole of text
// follows the grammar, with its count of multi-byte characters and of those whose second
// byte is 0x80 or more (ideographs and kana mostly; an accented Latin-1 letter followed
// by an ASCII one is not).

// ShiftJIS is the Shift-JIS grammar: ASCII, half-width katakana A1-DF, or a lead byte
// 81-9F / E0-FC and a second byte 40-FC (not 7F).
func ShiftJIS(text string, inside func(int)) (chars, highSecond int, ok bool) {
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c < 0x80 || 0xA1 <= c && c <= 0xDF:
		case 0x81 <= c && c <= 0x9F || 0xE0 <= c && c <= 0xFC:
			if i+1 >= len(text) {
				return 0, 0, false
			}
			t := text[i+1]
			if t < 0x40 || t == 0x7F || t > 0xFC {
				return 0, 0, false
			}
			chars++
			if t >= 0x80 {
				highSecond++
			}
			i++
			if inside != nil {
				inside(i)
			}
		default:
			return 0, 0, false
		}
	}
	return chars, highSecond, true
}

// GBK is the GBK and GB18030 grammar, which Big5 text follows too: a lead byte 81-FE and
// a second byte 40-FE (not 7F), or a four-byte GB18030 sequence whose second and fourth
// bytes are digits (counted as having a high second byte: no Latin-1 text has that
// shape).
func GBK(text string, inside func(int)) (chars, highSecond int, ok bool) {
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c < 0x80 {
			continue
		}
		if c == 0x80 || c == 0xFF || i+1 >= len(text) {
			return 0, 0, false
		}
		n := 0
		switch t := text[i+1]; {
		case 0x40 <= t && t <= 0xFE && t != 0x7F:
			n = 1
			if t >= 0x80 {
				highSecond++
			}
		case '0' <= t && t <= '9' && i+3 < len(text) && 0x81 <= text[i+2] && text[i+2] <= 0xFE && '0' <= text[i+3] && text[i+3] <= '9':
			n = 3
			highSecond++
		default:
			return 0, 0, false
		}
		chars++
		for ; n > 0; n-- {
			i++
			if inside != nil {
				inside(i)
			}
		}
	}
	return chars, highSecond, true
}

// EUC is the EUC grammar (EUC-JP, EUC-KR, GB2312 as EUC-CN): two bytes A1-FE, SS2 (8E)
// and a byte A1-DF, or SS3 (8F) and two bytes A1-FE; an ASCII byte is never inside a
// character.
func EUC(text string, inside func(int)) (chars int, ok bool) {
	hi := func(b byte) bool { return 0xA1 <= b && b <= 0xFE }
	for i := 0; i < len(text); i++ {
		c := text[i]
		n := 0
		switch {
		case c < 0x80:
			continue
		case hi(c) && i+1 < len(text) && hi(text[i+1]):
			n = 1
		case c == 0x8E && i+1 < len(text) && 0xA1 <= text[i+1] && text[i+1] <= 0xDF:
			n = 1
		case c == 0x8F && i+2 < len(text) && hi(text[i+1]) && hi(text[i+2]):
			n = 2
		default:
			return 0, false
		}
		chars++
		for ; n > 0; n-- {
			i++
			if inside != nil {
				inside(i)
			}
		}
	}
	return chars, true
}

// LegacyMultiByte reports whether text reads as Shift-JIS, GBK or EUC text on the
// evidence edit also asks for: it follows one grammar throughout (a character cut by
// the end of text aside), and for Shift-JIS and GBK a quarter or more of its characters
// have a non-ASCII second byte.
// Text also needs three different characters: a run of one byte value (FD FD FD ...)
// follows EUC's grammar and is no text.
func LegacyMultiByte(text string) bool {
	for cut := 0; cut < 4 && cut < len(text); cut++ {
		t := text[:len(text)-cut]
		seen := map[string]bool{}
		distinct := func(i int) {
			if len(seen) < 3 {
				seen[t[i-1:i+1]] = true
			}
		}
		if _, ok := EUC(t, distinct); ok && len(seen) >= 3 {
			return true
		}
		for _, g := range []func(string, func(int)) (int, int, bool){ShiftJIS, GBK} {
			clear(seen)
			if n, high, ok := g(t, distinct); ok && len(seen) >= 3 && 4*high >= n {
				return true
			}
		}
	}
	return false
}
