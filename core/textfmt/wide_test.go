package textfmt

import (
	"bytes"
	"encoding/binary"
	"io"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// reference decodes raw (after a 2- or 4-byte mark) as the standard library does, each
// unit that is not text as U+FFFD; WideReader's output, shown with ShowInvalid, must
// equal it.
func reference(raw []byte, enc string) string {
	big := enc == UTF16BE || enc == UTF32BE
	if enc == UTF32LE || enc == UTF32BE {
		var b strings.Builder
		for i := 4; i < len(raw); i += 4 {
			if i+4 > len(raw) {
				b.WriteRune(utf8.RuneError)
				break
			}
			u := binary.LittleEndian.Uint32(raw[i:])
			if big {
				u = binary.BigEndian.Uint32(raw[i:])
			}
			if u > utf8.MaxRune || !utf8.ValidRune(rune(u)) {
				u = utf8.RuneError
			}
			b.WriteRune(rune(u))
		}
		return b.String()
	}
	var units []uint16
	for i := 2; i+2 <= len(raw); i += 2 {
		if big {
			units = append(units, binary.BigEndian.Uint16(raw[i:]))
		} else {
			units = append(units, binary.LittleEndian.Uint16(raw[i:]))
		}
	}
	s := string(utf16.Decode(units))
	if len(raw) > 2 && len(raw)%2 != 0 {
		s += "\uFFFD"
	}
	return s
}

func decodeAll(t testing.TB, raw []byte, enc string) []byte {
	out, err := io.ReadAll(NewWideReader(bytes.NewReader(raw), enc))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestWideReader(t *testing.T) {
	le := func(s string) []byte {
		out := []byte{0xFF, 0xFE}
		for _, u := range utf16.Encode([]rune(s)) {
			out = binary.LittleEndian.AppendUint16(out, u)
		}
		return out
	}
	if got := string(decodeAll(t, le("hé\U0001F600\n"), UTF16LE)); got != "hé\U0001F600\n" {
		t.Errorf("UTF-16LE: %q", got)
	}
	// A pair across the reader's 64 KB buffer, at every offset near the edge.
	for pad := 32760; pad < 32772; pad++ {
		raw := le(strings.Repeat("a", pad) + "\U0001F600z")
		if got, want := string(decodeAll(t, raw, UTF16LE)), strings.Repeat("a", pad)+"\U0001F600z"; got != want {
			t.Fatalf("pad %d: the pair across the buffer's edge is lost (%d bytes, want %d)", pad, len(got), len(want))
		}
	}
	// Units that are not text: one byte that is not UTF-8 each, counted by ShowInvalid.
	for _, c := range []struct {
		raw  []byte
		enc  string
		bad  int
		text string
	}{
		{[]byte{0xFF, 0xFE, 'a', 0, 0x00, 0xD8, 'b', 0}, UTF16LE, 1, "a\uFFFDb"},       // lone high surrogate
		{[]byte{0xFF, 0xFE, 0x00, 0xDC, 'b', 0}, UTF16LE, 1, "\uFFFDb"},                // lone low surrogate
		{[]byte{0xFE, 0xFF, 0, 'a', 0xD8}, UTF16BE, 1, "a\uFFFD"},                      // odd last byte
		{[]byte{0xFF, 0xFE, 0, 0, 'a', 0, 0, 0, 0, 0, 0x11, 0}, UTF32LE, 1, "a\uFFFD"}, // past U+10FFFF
		{[]byte{0, 0, 0xFE, 0xFF, 0, 0, 0xD8, 0, 0, 0, 0, 'x', 0}, UTF32BE, 2, "\uFFFDx\uFFFD"},
	} {
		shown, n := ShowInvalid(string(decodeAll(t, c.raw, c.enc)))
		if shown != c.text || n != c.bad {
			t.Errorf("%q (%s): %q with %d invalid, want %q with %d", c.raw, c.enc, shown, n, c.text, c.bad)
		}
	}
}

func FuzzWideReader(f *testing.F) {
	f.Add([]byte{0xFF, 0xFE, 'a', 0, 0x3D, 0xD8, 0x00, 0xDE}, uint8(0))
	f.Add([]byte{0xFE, 0xFF, 0xD8, 0x3D}, uint8(1))
	f.Add([]byte{0xFF, 0xFE, 0, 0, 'a', 0, 0, 0, 1}, uint8(2))
	f.Add([]byte{0, 0, 0xFE, 0xFF, 0, 0x10, 0xFF, 0xFF}, uint8(3))
	encs := []string{UTF16LE, UTF16BE, UTF32LE, UTF32BE}
	f.Fuzz(func(t *testing.T, raw []byte, which uint8) {
		enc := encs[int(which)%len(encs)]
		got, _ := ShowInvalid(string(decodeAll(t, raw, enc)))
		if want := reference(raw, enc); got != want {
			t.Fatalf("%q as %s: %q, want %q", raw, enc, got, want)
		}
	})
}
