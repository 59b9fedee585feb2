package core

import (
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// SkippedDirs are directory names no search descends into unless asked (reference 001's
// list, plus a few more generated-output folders).
var SkippedDirs = []string{".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv", "venv", ".tox",
	".mypy_cache", ".ruff_cache", ".pytest_cache", "dist", "build", ".eggs", "target", ".next", ".gradle"}

func skippedDir(name string) bool {
	if strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".egg-info") {
		return true
	}
	for _, s := range SkippedDirs {
		if s == name {
			return true
		}
	}
	return false
}

// SimilarPaths returns up to n existing files anywhere in the workspace whose names
// resemble missing's, best first, for "did you mean" hints. The walk is bounded (entries
// and time), so a huge tree costs a fraction of a second at most.
func (w *Workspace) SimilarPaths(missing string, n int) []string {
	want := strings.ToLower(filepath.Base(missing))
	wantStem := strings.TrimSuffix(want, filepath.Ext(want))
	type cand struct {
		path  string
		score float64
	}
	var cands []cand
	deadline := time.Now().Add(300 * time.Millisecond)
	visited := 0
	for _, root := range w.Roots {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			visited++
			if visited > 200000 || time.Now().After(deadline) {
				return filepath.SkipAll
			}
			if d.IsDir() {
				if p != root && skippedDir(d.Name()) {
					return filepath.SkipDir
				}
				return nil
			}
			name := strings.ToLower(d.Name())
			dist := editDistance(want, name)
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
				cands = append(cands, cand{p, score})
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
