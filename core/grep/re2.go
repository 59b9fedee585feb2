package grep

import (
	"os"

	re2 "github.com/wasilibs/go-re2"
)

// loadRE2 compiles the pattern with go-re2 for whole-buffer search. go-re2 sets its
// engine up on first use (about 1.4 ms), so only patterns without a usable literal pay
// for it. If go-re2 refuses a pattern Go accepts, the search falls back to Go's regexp
// line by line: slower, same answers.
func (m *Engine) loadRE2() error {
	if m.re2 != nil || os.Getenv("AGENTBOX_GREP_NO_RE2") != "" {
		return nil
	}
	r, err := re2.Compile(m.reSrc)
	if err != nil {
		return nil
	}
	m.re2 = func(b []byte) [][]int { return r.FindAllIndex(b, -1) }
	return nil
}
