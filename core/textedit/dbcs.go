package textedit

import (
	"unicode/utf8"

	"github.com/agentbox/agentbox/core/textfmt"
)

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
// Where the evidence is missing but the bytes follow a two-byte encoding's rules
// throughout, the file may be either: Latin-1's "Z\xfcrich" is also a Shift-JIS
// character and "ich", and katakana text such as "\x83\x5c\x81\x5b" (ソー) has the
// second bytes of Latin-1 punctuation. A match that starts or ends where a character
// would be cut in two then cannot be told right from wrong, and the edit is refused
// (ambiguous); everywhere else the file is edited as 8-bit text.

// splitChecker reports, for a byte offset of text, whether it falls inside a character
// of a two-byte encoding the text is in; nil when it is not such text (see above). sure
// is false where the text may as well be 8-bit text (see above). The grammars are
// core/textfmt's.
func splitChecker(text string) (inside func(int) bool, sure bool) {
	if utf8.ValidString(text) {
		return nil, false
	}
	newBits := func() ([]uint64, func(int)) {
		bits := make([]uint64, len(text)/64+1)
		return bits, func(i int) { bits[i/64] |= 1 << (i % 64) }
	}
	var strong, weak []uint64
	or := func(into *[]uint64, bits []uint64) {
		if *into == nil {
			*into = bits
			return
		}
		for i := range *into {
			(*into)[i] |= bits[i]
		}
	}
	if bits, mark := newBits(); func() bool { _, ok := textfmt.EUC(text, mark); return ok }() {
		strong = bits
	} else {
		for _, grammar := range []func(string, func(int)) (int, int, bool){textfmt.ShiftJIS, textfmt.GBK} {
			bits, mark := newBits()
			chars, high, ok := grammar(text, mark)
			switch {
			case !ok || chars == 0:
			case 4*high < chars:
				or(&weak, bits)
			default:
				or(&strong, bits)
			}
		}
	}
	bits := strong
	if bits == nil {
		bits = weak
	}
	if bits == nil {
		return nil, false
	}
	return func(i int) bool { return i > 0 && i < len(text) && bits[i/64]&(1<<(i%64)) != 0 }, strong != nil
}
