package policy

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const (
	helperEnv   = "AGENTBOX_POLICY_GRANT_HELPER"
	perHelper   = 25
	sharedOnces = 40
	helpers     = 8
)

// TestGrantHelper is the child process of TestGrantsConcurrent; it does nothing in a
// normal run.
func TestGrantHelper(t *testing.T) {
	spec := os.Getenv(helperEnv)
	if spec == "" {
		t.Skip("child process of TestGrantsConcurrent only")
	}
	dir, idx, _ := strings.Cut(spec, "|")
	s := OpenStore(dir)
	used := 0
	shared, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < perHelper; j++ {
		if _, err := s.Add(Grant{Permission: "bash", Pattern: fmt.Sprintf("cmd-%s-%d", idx, j)}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Add(Grant{Permission: "bash", Pattern: fmt.Sprintf("once-%s-%d", idx, j), Scope: "once"}); err != nil {
			t.Fatal(err)
		}
		// Check: what this process granted is there.
		rules, err := s.Rules()
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, r := range rules {
			found = found || r.Pattern == fmt.Sprintf("cmd-%s-%d", idx, j)
		}
		if !found {
			t.Fatalf("grant cmd-%s-%d lost right after adding it", idx, j)
		}
		// Race the other processes for the shared once grants.
		for _, g := range shared {
			if strings.HasPrefix(g.Pattern, "shared-") && (j+len(g.ID))%3 == 0 {
				ok, err := s.Consume(g.ID)
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					used++
				}
			}
		}
	}
	for _, g := range shared {
		if !strings.HasPrefix(g.Pattern, "shared-") {
			continue
		}
		if ok, err := s.Consume(g.ID); err != nil {
			t.Fatal(err)
		} else if ok {
			used++
		}
	}
	fmt.Printf("USED %d\n", used)
}

// TestGrantsConcurrent: 8 processes add grants and consume once grants in one session
// directory at once; no grant is lost and no once grant is used twice.
func TestGrantsConcurrent(t *testing.T) {
	if os.Getenv(helperEnv) != "" {
		t.Skip("in a child")
	}
	dir := t.TempDir()
	s := OpenStore(dir)
	for i := 0; i < sharedOnces; i++ {
		if _, err := s.Add(Grant{Permission: "bash", Pattern: fmt.Sprintf("shared-%d", i), Scope: "once"}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	outs := make([]string, helpers)
	errs := make([]error, helpers)
	for i := 0; i < helpers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestGrantHelper$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), helperEnv+"="+dir+"|"+strconv.Itoa(i))
			out, err := cmd.CombinedOutput()
			outs[i], errs[i] = string(out), err
		}(i)
	}
	wg.Wait()
	used := 0
	for i := range outs {
		if errs[i] != nil {
			t.Fatalf("helper %d: %v\n%s", i, errs[i], outs[i])
		}
		var n int
		for _, line := range strings.Split(outs[i], "\n") {
			if _, err := fmt.Sscanf(line, "USED %d", &n); err == nil {
				used += n
			}
		}
	}
	if used != sharedOnces {
		t.Errorf("shared once grants used %d times in all, want exactly %d", used, sharedOnces)
	}
	gs, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, g := range gs {
		seen[g.Pattern] = true
		if strings.HasPrefix(g.Pattern, "shared-") {
			t.Errorf("once grant %s survived its use", g.Pattern)
		}
	}
	for i := 0; i < helpers; i++ {
		for j := 0; j < perHelper; j++ {
			for _, p := range []string{"cmd-%d-%d", "once-%d-%d"} {
				if k := fmt.Sprintf(p, i, j); !seen[k] {
					t.Errorf("grant %s lost", k)
				}
			}
		}
	}
	if len(gs) != helpers*perHelper*2 {
		t.Errorf("%d grants stored, want %d", len(gs), helpers*perHelper*2)
	}
	if fi, err := os.Stat(filepath.Join(dir, "grants.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("grants.json: %v %v, want mode 0600", fi, err)
	}
}

func TestStoreRevokeAndDedupe(t *testing.T) {
	s := OpenStore(t.TempDir())
	a, err := s.Add(Grant{Permission: "bash", Pattern: "make *"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Add(Grant{Permission: "bash", Pattern: "make *"})
	if a[0].ID != b[0].ID {
		t.Errorf("an equal session grant was stored twice")
	}
	if _, err := s.Add(Grant{Permission: "bash", Pattern: "x", Scope: "forever"}); err == nil {
		t.Error("bad scope accepted")
	}
	if _, err := s.Add(Grant{Permission: "bsh", Pattern: "x"}); err == nil {
		t.Error("bad permission accepted")
	}
	c, _ := s.Add(Grant{Permission: "write", Pattern: "/w/**"})
	removed, err := s.Revoke(a[0].ID)
	if err != nil || len(removed) != 1 || removed[0].ID != a[0].ID {
		t.Errorf("revoke: %v %v", removed, err)
	}
	gs, _ := s.List()
	if len(gs) != 1 || gs[0].ID != c[0].ID {
		t.Errorf("after revoke: %+v", gs)
	}
	if removed, _ := s.Revoke(); len(removed) != 1 {
		t.Errorf("revoke all removed %d", len(removed))
	}
	if err := os.WriteFile(filepath.Join(s.dir, "grants.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("damaged store: %v", err)
	}
}

func TestShallowGrant(t *testing.T) {
	s := OpenStore(t.TempDir())
	if _, err := s.Add(Grant{Permission: "fs.write", Pattern: "/w/proj/dir", Shallow: true}, Grant{Permission: "fs.write", Pattern: "/w/proj/dir/*", Shallow: true}); err != nil {
		t.Fatal(err)
	}
	rules, err := s.Rules()
	if err != nil {
		t.Fatal(err)
	}
	p := newPolicy(t, ModeDefault).WithGrants(rules)
	for target, want := range map[string]Action{ws + "/dir": Allow, ws + "/dir/a": Allow, ws + "/dir/a/b": Ask, ws + "/dirx": Ask} {
		if d := p.Evaluate(file("write", CapFSWrite, target)); d.Action != want {
			t.Errorf("%s: %v, want %v", target, d.Action, want)
		}
	}
}
