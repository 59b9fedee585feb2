package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The test binary is its own sandbox helper, as agentbox is.
func TestMain(m *testing.M) {
	Hook()
	os.Exit(m.Run())
}

func bash(t *testing.T) string {
	for _, p := range []string{"/bin/bash", "/usr/bin/bash"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skip("no bash on this machine")
	return ""
}

// run runs script under cfg in a sandboxed subprocess.
func run(t *testing.T, cfg Config, dir, script string) (string, error) {
	t.Helper()
	cmd := exec.Command(bash(t), "--noprofile", "--norc", "-c", script)
	cmd.Dir = dir
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Wrap(cmd, cfg, self)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("report: %+v", r)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func needLandlock(t *testing.T) {
	if Probe().LandlockABI == 0 {
		t.Skip("this kernel has no Landlock: the sandbox cannot confine writes here, so there is nothing to test")
	}
}

func TestWorkspaceWrite(t *testing.T) {
	needLandlock(t)
	ws, outside, tmp := t.TempDir(), t.TempDir(), t.TempDir()
	cfg := Config{Mode: WorkspaceWrite, Roots: []string{ws}, TempDir: tmp}
	if out, err := run(t, cfg, ws, "echo ok > inside.txt && echo ok > "+tmp+"/t && echo hi > /dev/null"); err != nil {
		t.Fatalf("write inside the workspace failed: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(ws, "inside.txt")); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, cfg, ws, "echo no > "+outside+"/x")
	if err == nil {
		t.Fatalf("write outside the workspace succeeded:\n%s", out)
	}
	if !strings.Contains(out, "Permission denied") {
		t.Errorf("unexpected failure text: %s", out)
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
		t.Fatal("file outside the workspace was created")
	}
	// Reading outside stays allowed.
	if out, err := run(t, cfg, ws, "cat /etc/hostname >/dev/null || cat /etc/passwd > /dev/null"); err != nil {
		t.Errorf("reading outside failed: %v\n%s", err, out)
	}
}

func TestReadOnly(t *testing.T) {
	needLandlock(t)
	ws := t.TempDir()
	out, err := run(t, Config{Mode: ReadOnly, Roots: []string{ws}}, ws, "echo no > x")
	if err == nil {
		t.Fatalf("read-only sandbox allowed a write:\n%s", out)
	}
	if out, err := run(t, Config{Mode: ReadOnly}, ws, "ls / > /dev/null && echo fine"); err != nil || !strings.Contains(out, "fine") {
		t.Fatalf("read-only sandbox broke reading: %v\n%s", err, out)
	}
}

func TestNetworkOff(t *testing.T) {
	needLandlock(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback listener: %v", err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	script := fmt.Sprintf("exec 5<>/dev/tcp/127.0.0.1/%d && echo connected", port)
	ws := t.TempDir()
	if out, err := run(t, Config{Mode: WorkspaceWrite, Roots: []string{ws}, AllowNetwork: true}, ws, script); err != nil {
		t.Fatalf("with the network allowed, the connection failed: %v\n%s", err, out)
	}
	for _, landlockOnly := range []bool{false, true} {
		noUserNS = landlockOnly
		r := Plan(Config{Mode: WorkspaceWrite})
		if r.Network == "not-isolated" {
			t.Logf("this kernel cannot cut the network that way: %v", r.Notes)
			continue
		}
		out, err := run(t, Config{Mode: WorkspaceWrite, Roots: []string{ws}}, ws, script)
		if err == nil || strings.Contains(out, "connected") {
			t.Errorf("network %s: connection to a loopback listener succeeded:\n%s", r.Network, out)
		}
	}
	noUserNS = false
}

func TestOffChangesNothing(t *testing.T) {
	cmd := exec.Command("/bin/true")
	r, err := Wrap(cmd, Config{}, "/nonexistent")
	if err != nil || r.Mode != Off || cmd.Path != "/bin/true" {
		t.Fatalf("mode off rewrote the command: %+v %v %s", r, err, cmd.Path)
	}
}

func TestPlanIsHonest(t *testing.T) {
	r := Plan(Config{Mode: WorkspaceWrite})
	if r.Landlock == 0 && (r.FilesConfined || len(r.Notes) == 0) {
		t.Fatalf("no Landlock but the report claims confinement: %+v", r)
	}
	if r.Network != "isolated" && len(r.Notes) == 0 {
		t.Fatalf("network %s without a note: %+v", r.Network, r)
	}
}

// In workspace-write, .git and .agentbox stay read-only (issue 15.2): the command can
// write the workspace but not the git config or hooks, nor agentbox's project config,
// and cannot move them aside. Without user namespaces the report must say so.
func TestWorkspaceWriteKeepsGovernanceReadOnly(t *testing.T) {
	needLandlock(t)
	ws, tmp := t.TempDir(), t.TempDir()
	for _, f := range []string{".git/config", ".git/hooks/README", ".agentbox/config.json"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, f), []byte("orig\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := Config{Mode: WorkspaceWrite, Roots: []string{ws}, TempDir: tmp}
	r := Plan(cfg)
	if !Probe().UserNS {
		if len(r.ReadOnly) != 0 || !strings.Contains(strings.Join(r.Notes, " "), "can NOT be kept read-only") {
			t.Fatalf("without user namespaces the report must say .git is not protected: %+v", r)
		}
		t.Skip("user namespaces are unavailable: .git cannot be kept read-only here (the report says so)")
	}
	if len(r.ReadOnly) != 2 {
		t.Fatalf("report: %+v, want .git and .agentbox read-only", r)
	}
	if out, err := run(t, cfg, ws, "echo ok > a.txt && mkdir -p src && echo ok > src/b.txt"); err != nil {
		t.Fatalf("an ordinary write failed: %v\n%s", err, out)
	}
	for _, script := range []string{
		"echo '[core]' >> .git/config",
		"echo 'touch pwned' > .git/hooks/pre-commit",
		"rm -f .git/config",
		"mv .git moved",
		"rm -rf .git",
		"echo '{}' > .agentbox/config.json",
		"mkdir .agentbox/skills",
		"cd .git && echo x > config",
	} {
		if out, err := run(t, cfg, ws, script); err == nil {
			t.Errorf("%q succeeded in workspace-write:\n%s", script, out)
		}
	}
	for _, f := range []string{".git/config", ".agentbox/config.json"} {
		if b, err := os.ReadFile(filepath.Join(ws, f)); err != nil || string(b) != "orig\n" {
			t.Errorf("%s changed: %q %v", f, b, err)
		}
	}
	for _, f := range []string{".git/hooks/pre-commit", "moved", "pwned"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err == nil {
			t.Errorf("%s was created", f)
		}
	}
	// Read-only mode is unaffected, and a root without .git has nothing to protect.
	if r := Plan(Config{Mode: WorkspaceWrite, Roots: []string{t.TempDir()}}); len(r.ReadOnly) != 0 {
		t.Errorf("a root without .git: %+v", r)
	}
}
