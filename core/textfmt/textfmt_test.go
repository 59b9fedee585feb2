package textfmt

import (
	"strings"
	"testing"
)

func TestEncoding(t *testing.T) {
	for _, c := range []struct {
		head string
		enc  string
		bom  int
	}{
		{"plain", UTF8, 0}, {"", UTF8, 0}, {"\xEF\xBB\xBFx", UTF8BOM, 3},
		{"\xFF\xFEx\x00", UTF16LE, 0}, {"\xFE\xFF\x00x", UTF16BE, 0},
	} {
		if enc, bom := Encoding([]byte(c.head)); enc != c.enc || bom != c.bom {
			t.Errorf("Encoding(%q) = %s %d, want %s %d", c.head, enc, bom, c.enc, c.bom)
		}
	}
}

func TestBinaryReason(t *testing.T) {
	text := []string{
		"", "hello\n", "tab\there\r\n", "\xEF\xBB\xBFwith a BOM\n", "\x1b[31mcolour\x1b[0m\n",
		"\xFF\xFEh\x00i\x00", // UTF-16 with a BOM: its NULs are characters
		"caf\xc3\xa9 \xe2\x82\xac\n",
		strings.Repeat("a", SniffBytes-1) + "\xe2\x82", // a character cut by the window
		strings.Repeat("a", SniffBytes) + "\x00",       // a NUL past the window
	}
	for _, s := range text {
		if why := BinaryReason([]byte(s)); why != "" {
			t.Errorf("%q: %s, want text", s[:min(len(s), 40)], why)
		}
	}
	binary := map[string]string{
		"a\x00b":                              "a NUL byte",
		"\x01\x02\x03\x04abc":                 "57% non-printable characters",
		strings.Repeat("\xfd", 10) + "abcdef": "62% non-printable characters",
		"\xEF\xBB\xBF\x00":                    "a NUL byte",
	}
	for s, want := range binary {
		if why := BinaryReason([]byte(s)); why != want {
			t.Errorf("%q: %q, want %q", s, why, want)
		}
	}
}

func TestShowInvalid(t *testing.T) {
	for in, want := range map[string]struct {
		out string
		n   int
	}{
		"plain é":          {"plain é", 0},
		"x \xe9\xe8\xe7 y": {"x \uFFFD\uFFFD\uFFFD y", 3}, // one per byte, as encoding/json writes them
		"\xe2\x82":         {"\uFFFD\uFFFD", 2},           // a cut sequence
		"a\uFFFDb":         {"a\uFFFDb", 0},               // a real U+FFFD is no invalid byte
	} {
		if out, n := ShowInvalid(in); out != want.out || n != want.n {
			t.Errorf("ShowInvalid(%q) = %q, %d; want %q, %d", in, out, n, want.out, want.n)
		}
	}
}

// TestLegacyTextIsNotBinary: Japanese or Chinese prose in Shift-JIS, GBK or EUC is all
// bytes that are not UTF-8, and was refused as binary; random bytes and control
// characters still are binary.
func TestLegacyTextIsNotBinary(t *testing.T) {
	sjis := "\x82\xb1\x82\xcc\x8d\x73\x82\xcd\x93\xfa\x96\x7b\x8c\xea\x82\xcc\x83\x65\x83\x4c\x83\x58\x83\x67\x82\xc5\x82\xb7\x81\x42\n" // この行は日本語のテキストです。
	gbk := "\xd5\xe2\xca\xc7\xd6\xd0\xce\xc4\xce\xc4\xb1\xbe\xa1\xa3\n"                                                                  // 这是中文文本。
	eucjp := "\xa4\xb3\xa4\xce\xb9\xd4\xa4\xcf\xc6\xfc\xcb\xdc\xb8\xec\xa4\xc7\xa4\xb9\n"                                                // この行は日本語です
	for name, text := range map[string]string{"Shift-JIS": sjis, "GBK": gbk, "EUC-JP": eucjp} {
		if why := BinaryReason([]byte(strings.Repeat(text, 20))); why != "" {
			t.Errorf("%s prose is called binary: %s", name, why)
		}
	}
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(i*7919%251 + 1)
	}
	if BinaryReason(random) == "" {
		t.Error("random bytes are called text")
	}
	if BinaryReason([]byte(strings.Repeat("\x01\x02\x82\xb1", 100))) == "" {
		t.Error("control characters beside a valid pair are called text")
	}
}
