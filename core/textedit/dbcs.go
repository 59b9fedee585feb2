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
// Where the evidence is missing the file is edited as 8-bit text, as before.

// splitChecker reports, for a byte offset of text, whether it falls inside a character
// of a two-byte encoding the text is in; nil when it is not such text (see above). The
// grammars are core/textfmt's.
func splitChecker(text string) func(int) bool {
	if utf8.ValidString(text) {
		return nil
	}
	newBits := func() ([]uint64, func(int)) {
		bits := make([]uint64, len(text)/64+1)
		return bits, func(i int) { bits[i/64] |= 1 << (i % 64) }
	}
	var inside []uint64
	if bits, mark := newBits(); func() bool { _, ok := textfmt.EUC(text, mark); return ok }() {
		inside = bits
	} else {
		for _, grammar := range []func(string, func(int)) (int, int, bool){textfmt.ShiftJIS, textfmt.GBK} {
			bits, mark := newBits()
			chars, high, ok := grammar(text, mark)
			if !ok || chars == 0 || 4*high < chars {
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
	}
	if inside == nil {
		return nil
	}
	return func(i int) bool { return i > 0 && i < len(text) && inside[i/64]&(1<<(i%64)) != 0 }
}
