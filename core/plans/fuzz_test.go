package plans

import (
	"bytes"
	"testing"
)

// FuzzParse: the parser never panics; a parsed plan renders to a file that parses to the
// same plan once normalised; and changing one step's marker in place (what UpdateStep
// does) changes that step's status and nothing else.
func FuzzParse(f *testing.F) {
	f.Add([]byte("# T\n\n**ID:** plan-001\n**Status:** active\n**Created:** 2025-01-31\n\n## Steps\n\n1. [ ] a\n   Notes: n\n2. [x] b\n"))
	f.Add([]byte("# T\r\n- **ID**: plan-002\r\n\r\nprose\r\n## Steps\r\n1) [~] a\r\n   - more\r\n2. [-] b\r\n"))
	f.Add([]byte("# T\n\n**ID:** plan-001\n\n## Steps\n\n1. [?] a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		md := p.Markdown()
		q, err := Parse(md)
		if err != nil {
			t.Fatalf("rendered plan does not parse: %v\n%s", err, md)
		}
		if md2 := q.Markdown(); !bytes.Equal(md, md2) {
			t.Fatalf("render is not stable:\n%q\n%q", md, md2)
		}
		if len(p.Steps) == 0 {
			return
		}
		st := p.Steps[0]
		end := st.markerAt + bytes.IndexByte(data[st.markerAt:], ']') + 1
		edited := append(append(append([]byte{}, data[:st.markerAt]...), "[~]"...), data[end:]...)
		r, err := Parse(edited)
		if err != nil {
			t.Fatalf("marker edit broke the file: %v", err)
		}
		if r.Steps[0].Status != InProgress || len(r.Steps) != len(p.Steps) || r.Title != p.Title {
			t.Fatalf("marker edit changed more than the step: %+v vs %+v", r, p)
		}
	})
}
