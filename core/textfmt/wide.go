package textfmt

import (
	"bufio"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// InvalidUnit is what a WideReader writes for a code unit that is not text: one byte
// that is not UTF-8, so that a reader shows it as U+FFFD and counts it, in the window
// it falls in, as it counts a UTF-8 file's invalid bytes (ShowInvalid).
const InvalidUnit = 0xFF

// NewWideReader decodes UTF-16 or UTF-32 (enc, see Wide) from r, which starts with the
// byte order mark, into UTF-8. A lone surrogate, a value past U+10FFFF and a last code
// unit cut short each become one InvalidUnit byte; edit refuses such a file, since
// writing it back would change them.
func NewWideReader(r io.Reader, enc string) io.Reader {
	w := &wideReader{r: bufio.NewReaderSize(r, 64<<10), size: 2, big: enc == UTF16BE || enc == UTF32BE}
	if enc == UTF32LE || enc == UTF32BE {
		w.size = 4
	}
	if _, err := w.r.Discard(w.size); err != nil {
		w.err = err
	}
	return w
}

type wideReader struct {
	r    *bufio.Reader
	size int  // bytes per code unit
	big  bool // big-endian
	out  []byte
	next []byte // out's unread part
	err  error
}

func (w *wideReader) Read(p []byte) (int, error) {
	for len(w.next) == 0 {
		if w.err != nil {
			return 0, w.err
		}
		w.fill()
	}
	n := copy(p, w.next)
	w.next = w.next[n:]
	return n, nil
}

// fill decodes what r holds buffered, or reads more.
func (w *wideReader) fill() {
	buf, err := w.r.Peek(w.r.Size())
	if len(buf) == 0 {
		w.err = err
		if err == bufio.ErrBufferFull || err == nil {
			w.err = io.ErrNoProgress
		}
		return
	}
	w.out = w.out[:0]
	i := 0
	for ; i+w.size <= len(buf); i += w.size {
		u := w.unit(buf[i:])
		if w.size == 4 {
			if r := rune(u); u <= utf8.MaxRune && utf8.ValidRune(r) {
				w.out = utf8.AppendRune(w.out, r)
			} else {
				w.out = append(w.out, InvalidUnit)
			}
			continue
		}
		switch {
		case utf16.IsSurrogate(rune(u)) && u < 0xDC00:
			if i+4 > len(buf) && err == nil {
				goto done // its pair may be in the next read
			}
			if i+4 <= len(buf) {
				if r := utf16.DecodeRune(rune(u), rune(w.unit(buf[i+2:]))); r != utf8.RuneError {
					w.out = utf8.AppendRune(w.out, r)
					i += 2
					continue
				}
			}
			w.out = append(w.out, InvalidUnit)
		case utf16.IsSurrogate(rune(u)):
			w.out = append(w.out, InvalidUnit)
		default:
			w.out = utf8.AppendRune(w.out, rune(u))
		}
	}
done:
	if i == 0 && len(buf) < w.size && err != nil {
		// The file ends inside a code unit.
		w.out = append(w.out, InvalidUnit)
		i = len(buf)
	}
	w.r.Discard(i)
	w.next = w.out
}

func (w *wideReader) unit(b []byte) uint32 {
	if w.size == 2 {
		if w.big {
			return uint32(b[0])<<8 | uint32(b[1])
		}
		return uint32(b[1])<<8 | uint32(b[0])
	}
	if w.big {
		return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	}
	return uint32(b[3])<<24 | uint32(b[2])<<16 | uint32(b[1])<<8 | uint32(b[0])
}
