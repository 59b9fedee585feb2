package core

import (
	"bufio"
	"unicode/utf8"
)

// JSONStreamer is result data too big to build as one JSON value before writing it (a
// hundred thousand grep lines were 9 MB built, copied as the buffer grew, and then
// written): the envelope writer hands it a buffered writer instead. StreamJSON must
// write exactly one JSON value, as encoding/json would with HTML escaping off, and may
// fail only when w does.
type JSONStreamer interface {
	StreamJSON(w *bufio.Writer) error
}

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string, byte for byte as encoding/json writes it
// with HTML escaping off: invalid UTF-8 becomes \ufffd, U+2028 and U+2029 are escaped
// (JavaScript reads them as line ends), control characters use the short escapes
// where JSON has them and \u00XX otherwise.
func AppendJSONString(dst, s []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
