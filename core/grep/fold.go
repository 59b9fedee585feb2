package grep

import "bytes"

// byteFreq is how often each ASCII byte occurs in typical source code, in units of
// 1/100000 (measured over every text file of Go 1.26's GOROOT/src: Go, assembly, C,
// test data, docs; a byte that occurs at all is at least 1). Only the ranking matters:
// it picks the byte of a literal that bytes.IndexByte should look for, the rarer the
// fewer false candidates to check. Like ripgrep's static frequency rank, it is a
// guess about the text, so a bad pick costs speed, never an answer.
var byteFreq = [128]uint16{
	0, 1, 1, 1, 1, 1, 1, 1, 1, 3646, 3001, 1, 0, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	14330, 120, 878, 30, 57, 81, 118, 99, 1161, 1160, 190, 134, 2293, 250, 1372, 1186, // ' ' .. '/'
	3405, 1397, 1084, 783, 811, 519, 743, 439, 635, 457, 969, 134, 109, 860, 96, 9, // '0' .. '?'
	7, 1109, 371, 549, 480, 670, 370, 209, 183, 552, 49, 102, 390, 438, 360, 535, // '@' .. 'O'
	479, 124, 637, 771, 676, 235, 381, 141, 382, 129, 66, 253, 507, 253, 12, 720, // 'P' .. '_'
	44, 2934, 821, 1813, 1580, 4867, 1643, 996, 904, 2764, 75, 412, 1803, 1054, 3086, 2518, // '`' .. 'o'
	1245, 83, 3210, 2602, 4004, 1482, 626, 389, 2068, 658, 119, 626, 129, 624, 5, 1, // 'p' .. DEL
}

// foldLit finds a fold-safe literal (ASCII, lowercased, no 'k' or 's': see foldSafe)
// ASCII-case-insensitively without a lowercased copy of the buffer. It looks for one
// byte of the literal, the rarest by byteFreq counting both of its cases, with
// bytes.IndexByte once per case, and compares the whole literal around each
// candidate. That finds exactly the offsets where the lowercased buffer holds the
// literal, which is what searching a lowercased copy found, minus the extra pass over
// every byte (the copy cost as much as the search itself).
type foldLit struct {
	lit    []byte // lowercased
	at     int    // offset of the rare byte in lit
	lo, up byte   // the rare byte's two cases (equal when it is not a letter)
}

func newFoldLit(lit []byte) foldLit {
	f := foldLit{lit: lit}
	best := -1
	for i, c := range lit {
		cost := int(byteFreq[c&0x7f])
		u := c
		if 'a' <= c && c <= 'z' {
			u = c - ('a' - 'A')
			cost += int(byteFreq[u])
		}
		if best < 0 || cost < best {
			best, f.at, f.lo, f.up = cost, i, c, u
		}
	}
	return f
}

// index returns the first offset p >= pos at which hay[p:] starts with the literal,
// ASCII case folded, or -1. next holds, for the rare byte's lower and upper case, the
// offset of its next occurrence in hay found so far (values below pos+at mean unknown):
// the two scans each advance only past candidates already checked, so neither rereads
// the stretch the other covered. The caller sets next to -1 for each new hay.
func (f *foldLit) index(hay []byte, pos int, next *[2]int) int {
	n := len(f.lit)
	end := len(hay) - n + f.at + 1 // the rare byte of a whole occurrence is before end
	for start := pos + f.at; start < end; {
		if next[0] < start {
			next[0] = end // none
			if k := bytes.IndexByte(hay[start:end], f.lo); k >= 0 {
				next[0] = start + k
			}
		}
		if f.up == f.lo {
			next[1] = end
		} else if next[1] < start {
			next[1] = end
			if k := bytes.IndexByte(hay[start:end], f.up); k >= 0 {
				next[1] = start + k
			}
		}
		c := min(next[0], next[1])
		if c >= end {
			return -1
		}
		if p := c - f.at; equalFold(hay[p:p+n], f.lit) {
			return p
		}
		start = c + 1
	}
	return -1
}

// equalFold reports whether b, ASCII-lowercased, is lit (lowercased, same length).
func equalFold(b, lit []byte) bool {
	for i, c := range lit {
		if lowerASCII(b[i]) != c {
			return false
		}
	}
	return true
}
