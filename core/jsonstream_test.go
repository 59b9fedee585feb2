package core

import (
	"bytes"
	"encoding/json"
	"testing"
)

// encodingJSON is the reference: encoding/json with HTML escaping off, as envelopes are
// written.
func encodingJSON(t testing.TB, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", `quote " and \ back`, "tab\tnl\nret\rbs\bff\f", "\x00\x01\x1f\x7f",
		"<html> & </html>", "line\u2028sep\u2029", "bad \xff\xfe utf8 \xe2\x82", "héllo wörld €", "\xed\xa0\x80 surrogate"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := AppendJSONString([]byte("x"), []byte(s))
		want := append([]byte("x"), encodingJSON(t, s)...)
		if !bytes.Equal(got, want) {
			t.Fatalf("AppendJSONString(%q) = %s, encoding/json writes %s", s, got, want)
		}
	})
}
