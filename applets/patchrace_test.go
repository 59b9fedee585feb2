package applets

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/coretest"
)

// swapGate denies writing protected.txt, and when the patch reads its file swaps the
// link src/race from .. back to d1: the patch was read (and will be written) at
// ./protected.txt, while its name src/race/protected.txt now leads to d1.
type swapGate struct {
	root    string
	swapped bool
	writes  []string
}

func (g *swapGate) Authorize(_ context.Context, _ *core.Env, req core.Request) (core.Decision, error) {
	switch req.Capability {
	case core.CapFSRead:
		if !g.swapped {
			g.swapped = true
			link := filepath.Join(g.root, "src", "race")
			os.Remove(link)
			if err := os.Symlink("d1", link); err != nil {
				return core.Decision{}, err
			}
		}
	case core.CapFSWrite:
		g.writes = append(g.writes, append([]string{req.Target}, req.Targets...)...)
		for _, t := range append([]string{req.Target}, req.Targets...) {
			if filepath.Clean(t) == filepath.Join(g.root, "protected.txt") {
				return core.Decision{Action: "deny"}, core.Errorf(core.CodePermissionDenied, "writing %s is denied", t)
			}
		}
	}
	return core.Decision{Action: "allow"}, nil
}

// TestPatchDecidesTheFilesItWrites: patch is decided on the files it will write (read
// under links as they were then), not only on the names in the patch, which may lead
// elsewhere by the time it asks: a link swapped between reading and deciding let a
// red-team's patch write a write-denied file.
func TestPatchDecidesTheFilesItWrites(t *testing.T) {
	env := coretest.Env(t, "patchrace")
	root := env.WS.Roots[0]
	writeFile(t, env, "protected.txt", "PROTECTED\n")
	writeFile(t, env, "src/d1/protected.txt", "other\n")
	if err := os.Symlink("..", filepath.Join(root, "src", "race")); err != nil {
		t.Fatal(err)
	}
	g := &swapGate{root: root}
	env.Gate = g
	req := `{"patch":"*** Begin Patch\n*** Update File: src/race/protected.txt\n@@\n-PROTECTED\n+PWNED\n*** End Patch\n"}`
	_, err := coretest.Call(t, env, &Patch{}, req)
	if err == nil || err.Code != core.CodePermissionDenied {
		t.Errorf("patch through a swapped link: %v (writes decided: %q); want permission_denied", err, g.writes)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "protected.txt")); !strings.Contains(string(b), "PROTECTED") {
		t.Errorf("the denied file was written: %q", b)
	}
}
