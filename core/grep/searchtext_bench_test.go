package grep

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkSearchText times the in-memory search of one large text (the Go files of
// GOROOT/src/net, about 4 MB) with no file system in the way: the literal, regexp and
// go-re2 paths of searchChunk, in content mode.
func BenchmarkSearchText(b *testing.B) {
	var text []byte
	files, _ := filepath.Glob(filepath.Join(goroot(b), "src", "net", "*", "*.go"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err == nil {
			text = append(text, data...)
		}
	}
	if len(text) == 0 {
		b.Skip("no Go sources under GOROOT/src/net")
	}
	text = bytes.ReplaceAll(text, []byte{0}, nil)
	for _, o := range []Options{
		{Pattern: `func main`, Mode: Content},
		{Pattern: `err != nil`, Mode: Content},
		{Pattern: `(Lock|Unlock)\(\)`, Mode: Content},
		{Pattern: `[a-z]+_[a-z]+\(`, Mode: Content},
		{Pattern: `\w+Error\b`, Mode: Count},
	} {
		b.Run(o.Pattern, func(b *testing.B) {
			m, err := Compile(o)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := m.SearchText("net.go", text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
