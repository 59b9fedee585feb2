package patch

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkPrepare: a 10,000-line file, 20 unified hunks spread through it.
func BenchmarkPrepare(b *testing.B) {
	var file, diff strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&file, "line %d of the file\n", i)
	}
	diff.WriteString("--- a/f\n+++ b/f\n")
	for h := range 20 {
		at := h*500 + 10
		fmt.Fprintf(&diff, "@@ -%d,3 +%d,3 @@\n line %d of the file\n-line %d of the file\n+changed %d\n line %d of the file\n", at, at, at-1, at, at, at+1)
	}
	m := newMem(map[string]string{"f": file.String()})
	p, err := Parse(diff.String())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Prepare(p, m); err != nil {
			b.Fatal(err)
		}
	}
}
