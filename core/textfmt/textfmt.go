// Package textfmt is agentbox's one answer to "what is in this file": its encoding,
// told by its byte order mark, and whether it is binary. read, edit and patch all ask
// it, so a file read shows as text is a file edit and patch may change, and a file
// one of them calls binary the others call binary too.
//
// Binary means what reference 000's read test means: in the first SniffBytes after the
// byte order mark, a NUL byte, or more than 30% of the characters control characters
// or invalid UTF-8. UTF-16 with a byte order mark is text (its NUL bytes are half of
// its characters); UTF-16 without one, and every other encoding, is judged as bytes.
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
)

// Encoding tells a file's encoding from its first bytes and how many of them are the
// UTF-8 byte order mark (the UTF-16 decoders consume their own).
func Encoding(head []byte) (enc string, bomLen int) {
	switch {
	case bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}):
		return UTF8BOM, 3
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
	if enc == UTF16LE || enc == UTF16BE {
		return ""
	}
	head = head[bomLen:min(len(head), bomLen+SniffBytes)]
	if len(head) == 0 {
		return ""
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return "a NUL byte"
	}
	nonPrintable, total := 0, 0
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		i += size
		total++
		if r == utf8.RuneError && size == 1 {
			if i > len(head)-4 { // a character cut by the window's end
				continue
			}
			nonPrintable++
			continue
		}
		if r < 0x20 && r != '\n' && r != '\r' && r != '\t' && r != '\f' && r != '\v' && r != 0x1b {
			nonPrintable++
		}
	}
	if nonPrintable*100 > total*30 {
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
