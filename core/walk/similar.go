package walk

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentbox/agentbox/core/suggest"
)

// SimilarPaths returns up to n existing files anywhere under roots whose names
// resemble missing's, best first, for "did you mean" hints. The walk is bounded (entries
// and time), so a huge tree costs a fraction of a second at most.
// denied, when set, leaves out what the permission policy does not let the agent read:
// a hint must not name a file the agent may not see.
func SimilarPaths(roots []string, missing string, n int, denied func(abs string, isDir bool) bool) []string {
	want := strings.ToLower(filepath.Base(missing))
	wantStem := strings.TrimSuffix(want, filepath.Ext(want))
	type cand struct {
		path  string
		score float64
	}
	var (
		mu    sync.Mutex
		cands []cand
		seen  atomic.Int64
	)
	// The same walker and skip rules as ls, glob and grep (hidden entries, ignore files,
	// node_modules-like folders), bounded in entries and time.
	opt := Options{Budget: 300 * time.Millisecond, Denied: denied}
	for _, root := range roots {
		_, _ = Walk(context.Background(), root, opt, func(e *Entry) error {
			if seen.Add(1) > 200000 {
				return ErrStop
			}
			name := strings.ToLower(e.Name)
			dist := suggest.EditDistance(want, name)
			longest := max(len(want), len(name))
			score := 1 - float64(dist)/float64(max(longest, 1))
			stem := strings.TrimSuffix(name, filepath.Ext(name))
			if stem == wantStem && stem != "" {
				score = max(score, 0.8) // same name, other extension
			}
			if name == want {
				score = 1 // same name in another folder
			}
			if score >= 0.6 {
				mu.Lock()
				cands = append(cands, cand{e.Path, score})
				mu.Unlock()
			}
			return nil
		})
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score > cands[j].score
		}
		return cands[i].path < cands[j].path
	})
	var out []string
	for i := 0; i < len(cands) && i < n; i++ {
		out = append(out, cands[i].path)
	}
	return out
}
