package textedit

import "unicode/utf8"

// A file that is not UTF-8 may be in a legacy multi-byte encoding (Shift-JIS, GBK,
// GB18030, Big5), whose characters are two (or four) bytes, the later ones possibly
// ASCII: 界 in Shift-JIS is 8A 45, where 45 is "E"; 表 is 95 5C, a backslash. An ASCII
// old_string matched at such a byte is not in the text, and replacing it breaks the
// character. Which encoding a file is in its bytes do not say, so a position counts as
// inside a character when it is inside one in any of these encodings whose rules the
// whole file follows. Latin-1 text rarely follows them (an accented letter before a
// space, a digit or punctuation breaks the pairing), so its edits are not held back.

// splitChecker reports, for a byte offset of text, whether it falls inside a character
// of a legacy multi-byte encoding the text may be in; nil when it cannot be in one
// (valid UTF-8, or no such encoding's rules fit).
func splitChecker(text string) func(int) bool {
	if utf8.ValidString(text) {
		return nil
	}
	var inside []uint64
	for _, rule := range []func(string, []uint64) bool{shiftJISPairs, gbkPairs} {
		bits := make([]uint64, len(text)/64+1)
		if rule(text, bits) {
			if inside == nil {
				inside = bits
				continue
			}
			for i := range inside {
				inside[i] |= bits[i]
			}
		}
	}
	if inside == nil {
		return nil
	}
	return func(i int) bool { return i > 0 && i < len(text) && inside[i/64]&(1<<(i%64)) != 0 }
}

func mark(bits []uint64, i int) { bits[i/64] |= 1 << (i % 64) }

// shiftJISPairs marks the offsets inside a Shift-JIS character (after its lead byte)
// and reports whether text follows Shift-JIS's rules.
func shiftJISPairs(text string, bits []uint64) bool {
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c < 0x80 || 0xA1 <= c && c <= 0xDF: // ASCII, half-width katakana
		case 0x81 <= c && c <= 0x9F || 0xE0 <= c && c <= 0xFC:
			if i+1 >= len(text) {
				return false
			}
			if t := text[i+1]; t < 0x40 || t == 0x7F || t > 0xFC {
				return false
			}
			i++
			mark(bits, i)
		default:
			return false
		}
	}
	return true
}

// gbkPairs is shiftJISPairs for GBK and GB18030 (a Big5 file follows GBK's byte rules
// too): a lead byte 81-FE and a second byte 40-FE, or a four-byte GB18030 sequence
// whose second and fourth bytes are digits.
func gbkPairs(text string, bits []uint64) bool {
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c < 0x80 {
			continue
		}
		if c == 0x80 || c == 0xFF || i+1 >= len(text) {
			return false
		}
		switch t := text[i+1]; {
		case 0x40 <= t && t <= 0xFE && t != 0x7F:
			i++
			mark(bits, i)
		case '0' <= t && t <= '9' && i+3 < len(text) && 0x81 <= text[i+2] && text[i+2] <= 0xFE && '0' <= text[i+3] && text[i+3] <= '9':
			mark(bits, i+1)
			mark(bits, i+2)
			mark(bits, i+3)
			i += 3
		default:
			return false
		}
	}
	return true
}
