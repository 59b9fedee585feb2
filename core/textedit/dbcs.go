package textedit

import "unicode/utf8"

// A file that is not UTF-8 may be in a legacy multi-byte encoding (Shift-JIS, GBK,
// GB18030, Big5), whose characters are two (or four) bytes, the later ones possibly
// ASCII: 界 in Shift-JIS is 8A 45, where 45 is "E"; 表 is 95 5C, a backslash. An ASCII
// old_string matched at such a byte is not in the text, and replacing it breaks the
// character. Which encoding a file is in its bytes do not say for certain, and Latin-1
// text ("Zürich": FC 72) can follow the same byte rules, so a file counts as two-byte
// text only on evidence:
//   - its bytes follow an encoding's rules throughout, and
//   - a quarter or more of its two-byte characters have a second byte of 0x80 or more,
//     as ideographs and kana mostly do (in Latin-1 text an accented letter is followed
//     by an ASCII one nearly always), and
//   - a file that is valid EUC (EUC-JP, EUC-KR, GB2312 as EUC-CN) is read as EUC alone,
//     where both bytes of a character are 0xA1 or more and an ASCII byte is never inside
//     one (GBK's rules would pair EUC-JP's three-byte characters wrongly).
// Where the evidence is missing the file is edited as 8-bit text, as before.

// splitChecker reports, for a byte offset of text, whether it falls inside a character
// of a two-byte encoding the text is in; nil when it is not such text (see above).
func splitChecker(text string) func(int) bool {
	if utf8.ValidString(text) {
		return nil
	}
	var inside []uint64
	if bits := make([]uint64, len(text)/64+1); eucChars(text, bits) {
		inside = bits
		return func(i int) bool { return i > 0 && i < len(text) && inside[i/64]&(1<<(i%64)) != 0 }
	}
	for _, rule := range []func(string, []uint64) (pairs, highTrail int, ok bool){shiftJISPairs, gbkPairs} {
		bits := make([]uint64, len(text)/64+1)
		pairs, high, ok := rule(text, bits)
		if !ok || pairs == 0 || 4*high < pairs {
			continue
		}
		if inside == nil {
			inside = bits
			continue
		}
		for i := range inside {
			inside[i] |= bits[i]
		}
	}
	if inside == nil {
		return nil
	}
	return func(i int) bool { return i > 0 && i < len(text) && inside[i/64]&(1<<(i%64)) != 0 }
}

func mark(bits []uint64, i int) { bits[i/64] |= 1 << (i % 64) }

// shiftJISPairs marks the offsets inside a Shift-JIS character (after its lead byte),
// counts its two-byte characters and those with a second byte of 0x80 or more, and
// reports whether text follows Shift-JIS's rules.
func shiftJISPairs(text string, bits []uint64) (pairs, highTrail int, ok bool) {
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c < 0x80 || 0xA1 <= c && c <= 0xDF: // ASCII, half-width katakana
		case 0x81 <= c && c <= 0x9F || 0xE0 <= c && c <= 0xFC:
			if i+1 >= len(text) {
				return 0, 0, false
			}
			t := text[i+1]
			if t < 0x40 || t == 0x7F || t > 0xFC {
				return 0, 0, false
			}
			pairs++
			if t >= 0x80 {
				highTrail++
			}
			i++
			mark(bits, i)
		default:
			return 0, 0, false
		}
	}
	return pairs, highTrail, true
}

// gbkPairs is shiftJISPairs for GBK and GB18030 (a Big5 file follows GBK's byte rules
// too): a lead byte 81-FE and a second byte 40-FE, or a four-byte GB18030 sequence
// whose second and fourth bytes are digits (counted as having a high second byte: no
// Latin-1 text has that shape).
func gbkPairs(text string, bits []uint64) (pairs, highTrail int, ok bool) {
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c < 0x80 {
			continue
		}
		if c == 0x80 || c == 0xFF || i+1 >= len(text) {
			return 0, 0, false
		}
		switch t := text[i+1]; {
		case 0x40 <= t && t <= 0xFE && t != 0x7F:
			pairs++
			if t >= 0x80 {
				highTrail++
			}
			i++
			mark(bits, i)
		case '0' <= t && t <= '9' && i+3 < len(text) && 0x81 <= text[i+2] && text[i+2] <= 0xFE && '0' <= text[i+3] && text[i+3] <= '9':
			pairs++
			highTrail++
			mark(bits, i+1)
			mark(bits, i+2)
			mark(bits, i+3)
			i += 3
		default:
			return 0, 0, false
		}
	}
	return pairs, highTrail, true
}

// eucChars marks the offsets inside EUC characters and reports whether every byte of
// 0x80 or more in text belongs to one: two bytes A1-FE, SS2 (8E) and a byte A1-DF, or
// SS3 (8F) and two bytes A1-FE.
func eucChars(text string, bits []uint64) bool {
	hi := func(b byte) bool { return 0xA1 <= b && b <= 0xFE }
	for i := 0; i < len(text); i++ {
		c := text[i]
		n := 0 // bytes after the first
		switch {
		case c < 0x80:
		case hi(c) && i+1 < len(text) && hi(text[i+1]):
			n = 1
		case c == 0x8E && i+1 < len(text) && 0xA1 <= text[i+1] && text[i+1] <= 0xDF:
			n = 1
		case c == 0x8F && i+2 < len(text) && hi(text[i+1]) && hi(text[i+2]):
			n = 2
		default:
			return false
		}
		for ; n > 0; n-- {
			i++
			mark(bits, i)
		}
	}
	return true
}
