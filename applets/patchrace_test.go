package applets

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/coretest"
	"github.com/agentbox/agentbox/core/swaptest"
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

// linkSwapGate allows everything, and at the first request of capability at it puts a
// link to keep.txt in the place of victim.txt (the file moves to vfile), as a process
// racing the patch with rename(2) exchanges did.
type linkSwapGate struct {
	dir     string
	at      string
	swapped bool
}

func (g *linkSwapGate) Authorize(_ context.Context, _ *core.Env, req core.Request) (core.Decision, error) {
	if req.Capability == g.at && !g.swapped {
		g.swapped = true
		victim := filepath.Join(g.dir, "victim.txt")
		os.Rename(victim, filepath.Join(g.dir, "vfile"))
		os.Symlink("keep.txt", victim)
	}
	return core.Decision{Action: "allow"}, nil
}

// A delete or move whose file is swapped for a link to another file, before the patch
// reads it or between reading and writing, removes neither that other file nor a file it
// was not given (red team: the link's target, .git/config or a read-only file, was
// deleted or moved away and the patch reported success).
func TestPatchDeleteNeverFollowsASwappedLink(t *testing.T) {
	for _, at := range []string{core.CapFSRead, core.CapFSWrite} {
		for _, op := range []string{"*** Delete File: victim.txt", "*** Update File: victim.txt\n*** Move to: moved.txt\n@@\n-AAA\n+BBB"} {
			env := coretest.Env(t, "patch")
			dir := env.WS.Roots[0]
			writeFile(t, env, "victim.txt", "AAA\n")
			writeFile(t, env, "keep.txt", "KEEP\n")
			env.Gate = &linkSwapGate{dir: dir, at: at}
			req, _ := json.Marshal(map[string]string{"patch": "*** Begin Patch\n" + op + "\n*** End Patch\n"})
			_, err := coretest.Call(t, env, &Patch{}, string(req))
			if got, _ := os.ReadFile(filepath.Join(dir, "keep.txt")); string(got) != "KEEP\n" {
				t.Errorf("swap at %s, %q: keep.txt is %q (err %v)", at, strings.SplitN(op, "\n", 2)[0], got, err)
			}
			if err == nil {
				t.Errorf("swap at %s, %q: the patch reported success", at, strings.SplitN(op, "\n", 2)[0])
			}
		}
	}
}

// The same under a real race: a process exchanges victim.txt with a link to keep.txt in
// a loop (rename(2) with RENAME_EXCHANGE) while patches delete or move victim.txt; the
// link's target is never removed or moved away (red team: 8 to 28 in 60 deletes lost it).
func TestPatchDeleteRacingALinkSwap(t *testing.T) {
	for _, op := range []string{"*** Delete File: victim.txt", "*** Update File: victim.txt\n*** Move to: moved.txt\n@@\n-AAA\n+BBB"} {
		env := coretest.Env(t, "patch")
		dir := env.WS.Roots[0]
		req, _ := json.Marshal(map[string]string{"patch": "*** Begin Patch\n" + op + "\n*** End Patch\n"})
		for i := range 40 {
			for _, f := range []string{"victim.txt", "vlink", "moved.txt"} {
				os.Remove(filepath.Join(dir, f))
			}
			os.WriteFile(filepath.Join(dir, "victim.txt"), []byte("AAA\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("KEEP\n"), 0o644)
			os.Symlink("keep.txt", filepath.Join(dir, "vlink"))
			stop := swaptest.Loop(t, filepath.Join(dir, "victim.txt"), filepath.Join(dir, "vlink"))
			_, err := coretest.Call(t, env, &Patch{}, string(req))
			stop()
			if got, _ := os.ReadFile(filepath.Join(dir, "keep.txt")); string(got) != "KEEP\n" {
				t.Fatalf("%q, round %d: keep.txt is %q", strings.SplitN(op, "\n", 2)[0], i, got)
			}
			// A success means the file itself went, not the link beside it (red team:
			// the link was removed and success reported).
			for _, name := range []string{"victim.txt", "vlink"} {
				if fi, lerr := os.Lstat(filepath.Join(dir, name)); err == nil && lerr == nil && fi.Mode().IsRegular() {
					if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) == "AAA\n" {
						t.Fatalf("%q, round %d: reported done, but the file is still there as %s", strings.SplitN(op, "\n", 2)[0], i, name)
					}
				}
			}
		}
	}
}

// The patch engine names a file by Canonical and then reads and writes it under that
// key: the key must give the resolution Canonical made, not a second one. A link swapped
// in between made the red team's patch read and rewrite .git/config while the gate had
// decided victim.txt.
func TestPatchFSResolvesANameOnce(t *testing.T) {
	env := coretest.Env(t, "patch")
	dir := env.WS.Roots[0]
	writeFile(t, env, "victim.txt", "AAA\n")
	writeFile(t, env, "keep.txt", "KEEP\n")
	fsys := newWorkspaceFS(context.Background(), env)
	key, err := fsys.Canonical("victim.txt")
	if err != nil {
		t.Fatal(err)
	}
	os.Rename(filepath.Join(dir, "victim.txt"), filepath.Join(dir, "vfile"))
	os.Symlink("keep.txt", filepath.Join(dir, "victim.txt"))
	data, _, err := fsys.ReadFile(key)
	if strings.Contains(string(data), "KEEP") {
		t.Fatalf("read under the canonical key followed the link swapped in: %q", data)
	}
	if err == nil {
		t.Fatalf("reading a file swapped for a link succeeded: %q", data)
	}
	if werr := fsys.WriteFile(key, []byte("NEW\n"), 0o644); werr == nil {
		t.Fatal("writing a file swapped for a link succeeded")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "keep.txt")); string(got) != "KEEP\n" {
		t.Fatalf("keep.txt became %q", got)
	}
}

// decidingGate allows everything and records what it was asked to let write.
type decidingGate struct{ decided map[string]bool }

func (g *decidingGate) Authorize(_ context.Context, _ *core.Env, req core.Request) (core.Decision, error) {
	if req.Capability == core.CapFSWrite {
		for _, t := range append([]string{req.Target}, req.Targets...) {
			g.decided[filepath.Clean(t)] = true
		}
	}
	return core.Decision{Action: "allow"}, nil
}

// An update racing a swap writes only files the gate decided: the red team's patch
// was decided on victim.txt and rewrote the link's target, .git/config, because the
// file was read under a second resolution of its name.
func TestPatchUpdateWritesOnlyWhatWasDecided(t *testing.T) {
	env := coretest.Env(t, "patch")
	dir := env.WS.Roots[0]
	req, _ := json.Marshal(map[string]string{"patch": "*** Begin Patch\n*** Update File: victim.txt\n@@\n-SAME\n+CHANGED\n*** End Patch\n"})
	for i := range 60 {
		os.Remove(filepath.Join(dir, "victim.txt"))
		os.Remove(filepath.Join(dir, "vlink"))
		os.WriteFile(filepath.Join(dir, "victim.txt"), []byte("SAME\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("SAME\n"), 0o644) // the hunk fits both
		os.Symlink("keep.txt", filepath.Join(dir, "vlink"))
		g := &decidingGate{decided: map[string]bool{}}
		env.Gate = g
		stop := swaptest.Loop(t, filepath.Join(dir, "victim.txt"), filepath.Join(dir, "vlink"))
		coretest.Call(t, env, &Patch{}, string(req))
		stop()
		if got, _ := os.ReadFile(filepath.Join(dir, "keep.txt")); string(got) != "SAME\n" && !g.decided[filepath.Join(dir, "keep.txt")] {
			t.Fatalf("round %d: keep.txt was written (%q) but the gate decided only %v", i, got, g.decided)
		}
	}
}
