package main

// Crash consistency (issue 9): kill -9 at random moments during edit, multi-edit, a
// multi-file patch and plan updates. Every file must always be entirely old or entirely
// new, and a patch is never half applied once the next agentbox call has run.

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

const crashRounds = 100

// longTest skips a test that takes minutes unless AGENTBOX_LONG_TESTS is set (.ci/run
// sets it).
func longTest(t *testing.T) {
	t.Helper()
	if os.Getenv("AGENTBOX_LONG_TESTS") == "" {
		t.Skip("a long test: set AGENTBOX_LONG_TESTS=1 to run it (.ci/run does)")
	}
}

// killer runs a command to completion a few times to learn how long it takes, then
// kills it at random moments across that span.
type killer struct {
	t    *testing.T
	rng  *rand.Rand
	full time.Duration
}

func newKiller(t *testing.T, sample func() *exec.Cmd) *killer {
	t.Helper()
	var took []time.Duration
	for i := 0; i < 3; i++ {
		cmd := sample()
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("an uninterrupted run failed: %v %.300s", err, out)
		}
		took = append(took, time.Since(start))
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	return &killer{t: t, rng: rand.New(rand.NewSource(time.Now().UnixNano())), full: took[1]}
}

// run starts cmd and kills it after a random delay up to twice a normal run.
func (k *killer) run(cmd *exec.Cmd) {
	k.t.Helper()
	if err := cmd.Start(); err != nil {
		k.t.Fatal(err)
	}
	time.Sleep(time.Duration(k.rng.Int63n(int64(k.full) * 2)))
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
}

type crashEnv struct {
	bin  string
	root string
}

func newCrashEnv(t *testing.T) *crashEnv {
	longTest(t)
	root := t.TempDir()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	return &crashEnv{bin: agentboxBinary(t), root: root}
}

// cmd builds an agentbox call; every round gets a session of its own, as a harness
// restarted after a crash would.
func (c *crashEnv) cmd(session, applet string, req any) *exec.Cmd {
	b, _ := json.Marshal(req)
	cmd := exec.Command(c.bin, applet)
	cmd.Dir = c.root
	cmd.Stdin = strings.NewReader(string(b))
	// PATH without testscript's applet links: bash there is this test binary.
	cmd.Env = append(os.Environ(), "AGENTBOX_ROOT="+c.root, "XDG_STATE_HOME="+filepath.Join(c.root, ".state"),
		"AGENTBOX_SESSION="+session, "AGENTBOX_MODE=bypass", "AGENTBOX_HEADLESS=1", "PATH="+pathWithoutApplets())
	return cmd
}

func (c *crashEnv) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.root, name))
	if err != nil {
		return "<missing>"
	}
	return string(b)
}

// noTemps fails when a temporary file of a write survived the sweep.
func (c *crashEnv) noTemps(t *testing.T) {
	t.Helper()
	_ = filepath.Walk(c.root, func(path string, info os.FileInfo, err error) error {
		if err == nil && strings.Contains(info.Name(), ".agentbox-tmp") {
			t.Errorf("a temporary file survived: %s", path)
		}
		return nil
	})
}

// bigText is a file of about n bytes with the given marker lines spread through it.
func bigText(n int, markers ...string) string {
	var b strings.Builder
	line := 0
	per := n / 64 / (len(markers) + 1)
	for i, m := range markers {
		for j := 0; j < per; j++ {
			fmt.Fprintf(&b, "line %08d of filler text that pads the file out to size\n", line)
			line++
		}
		fmt.Fprintf(&b, "%s %d\n", m, i)
	}
	for j := 0; j < per; j++ {
		fmt.Fprintf(&b, "line %08d of filler text that pads the file out to size\n", line)
		line++
	}
	return b.String()
}

func TestCrashDuringEditAndMultiEdit(t *testing.T) {
	for _, markers := range [][]string{{"MARK"}, {"MARK", "MARK", "MARK"}} {
		name := "edit"
		if len(markers) > 1 {
			name = "multi-edit"
		}
		t.Run(name, func(t *testing.T) {
			c := newCrashEnv(t)
			states := [2]string{}
			for i, tag := range []string{"OLD", "NEW"} {
				ms := make([]string, len(markers))
				for j := range ms {
					ms[j] = markers[j] + "-" + tag
				}
				states[i] = bigText(1<<20, ms...)
			}
			if err := os.WriteFile(filepath.Join(c.root, "f.txt"), []byte(states[0]), 0o644); err != nil {
				t.Fatal(err)
			}
			// The request that moves the file from its current state to the other one.
			request := func() any {
				from, to := "OLD", "NEW"
				if c.read(t, "f.txt") == states[1] {
					from, to = to, from
				}
				var edits []map[string]any
				for j := range markers {
					edits = append(edits, map[string]any{"old_string": fmt.Sprintf("MARK-%s %d\n", from, j), "new_string": fmt.Sprintf("MARK-%s %d\n", to, j)})
				}
				if len(edits) == 1 {
					return map[string]any{"file_path": "f.txt", "old_string": edits[0]["old_string"], "new_string": edits[0]["new_string"]}
				}
				return map[string]any{"file_path": "f.txt", "edits": edits}
			}
			sample := 0
			k := newKiller(t, func() *exec.Cmd { sample++; return c.cmd(fmt.Sprintf("sample-%d", sample), "edit", request()) })
			changed := 0
			for round := 0; round < crashRounds; round++ {
				before := c.read(t, "f.txt")
				k.run(c.cmd(fmt.Sprintf("r%d", round), "edit", request()))
				got := c.read(t, "f.txt")
				if got != states[0] && got != states[1] {
					t.Fatalf("round %d: the file is neither old nor new (%d bytes)", round, len(got))
				}
				if got != before {
					changed++
				}
			}
			// One more edit runs to the end and sweeps whatever the kills left.
			if out, err := c.cmd("final", "edit", request()).CombinedOutput(); err != nil {
				t.Fatalf("an edit after the crashes failed: %v %.300s", err, out)
			}
			c.noTemps(t)
			if changed == 0 || changed == crashRounds {
				t.Fatalf("%d of %d killed edits landed: the kills did not spread over the edit", changed, crashRounds)
			}
			t.Logf("%d rounds of kill -9 during %s (one takes %v): %d landed, none tore the file", crashRounds, name, k.full, changed)
		})
	}
}

func TestCrashDuringMultiFilePatch(t *testing.T) {
	c := newCrashEnv(t)
	files := []string{"a.txt", "b.txt", "c.txt"}
	body := func(tag string) string { return bigText(256<<10, "MARK-"+tag) }
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(c.root, f), []byte(body("OLD")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Forward: update a, b, c and add d. Backward: the reverse, deleting d.
	mk := func(from, to string, forward bool) string {
		var b strings.Builder
		b.WriteString("*** Begin Patch\n")
		for _, f := range files {
			fmt.Fprintf(&b, "*** Update File: %s\n@@\n-MARK-%s 0\n+MARK-%s 0\n", f, from, to)
		}
		if forward {
			b.WriteString("*** Add File: d.txt\n+added by the patch\n")
		} else {
			b.WriteString("*** Delete File: d.txt\n")
		}
		b.WriteString("*** End Patch\n")
		return b.String()
	}
	forward, backward := mk("OLD", "NEW", true), mk("NEW", "OLD", false)
	state := func() string {
		var tags []string
		for _, f := range files {
			switch c.read(t, f) {
			case body("OLD"):
				tags = append(tags, "old")
			case body("NEW"):
				tags = append(tags, "new")
			default:
				tags = append(tags, "torn")
			}
		}
		if d := c.read(t, "d.txt"); d == "<missing>" {
			tags = append(tags, "old")
		} else if d == "added by the patch\n" {
			tags = append(tags, "new")
		} else {
			tags = append(tags, "torn")
		}
		return strings.Join(tags, ",")
	}
	request := func() any {
		if state() == "new,new,new,new" {
			return map[string]any{"patch": backward}
		}
		return map[string]any{"patch": forward}
	}
	sample := 0
	k := newKiller(t, func() *exec.Cmd { sample++; return c.cmd(fmt.Sprintf("sample-%d", sample), "patch", request()) })
	half, landed := 0, 0
	for round := 0; round < crashRounds; round++ {
		before := state()
		k.run(c.cmd(fmt.Sprintf("r%d", round), "patch", request()))
		if s := state(); s != "old,old,old,old" && s != "new,new,new,new" {
			half++ // the kill landed mid-commit: the next call must undo it
		}
		// The next agentbox call, from another session and another applet, recovers.
		if out, err := c.cmd(fmt.Sprintf("next-%d", round), "write", map[string]any{"file_path": "other.txt", "content": fmt.Sprint(round)}).CombinedOutput(); err != nil {
			t.Fatalf("round %d: the call after the crash failed: %v %.300s", round, err, out)
		}
		s := state()
		if s != "old,old,old,old" && s != "new,new,new,new" {
			t.Fatalf("round %d: after the next call the patch is half applied: %s", round, s)
		}
		// Its recovery also swept the temporary file the kill may have left.
		c.noTemps(t)
		if t.Failed() {
			t.Fatalf("round %d: a temporary file outlived the recovery", round)
		}
		if s != before {
			landed++
		}
	}
	c.noTemps(t)
	if landed == 0 || landed == crashRounds {
		t.Fatalf("%d of %d killed patches landed: the kills did not spread over the patch", landed, crashRounds)
	}
	t.Logf("%d rounds of kill -9 during a 4-file patch (one takes %v): %d landed, %d were caught half-way and rolled back by the next call", crashRounds, k.full, landed, half)
}

func TestCrashDuringPlanUpdates(t *testing.T) {
	c := newCrashEnv(t)
	steps := make([]map[string]any, 8)
	for i := range steps {
		steps[i] = map[string]any{"description": fmt.Sprintf("step %d", i+1)}
	}
	if out, err := c.cmd("setup", "plan", map[string]any{"action": "create", "title": "crash", "steps": steps}).CombinedOutput(); err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	statuses := []string{"in_progress", "completed", "skipped", "pending"}
	k := newKiller(t, func() *exec.Cmd {
		return c.cmd("sample", "plan", map[string]any{"action": "update_step", "plan_id": "plan-001", "step": 1, "status": "pending"})
	})
	for round := 0; round < crashRounds; round++ {
		step, status := round%8+1, statuses[round%len(statuses)]
		k.run(c.cmd(fmt.Sprintf("r%d", round), "plan", map[string]any{"action": "update_step", "plan_id": "plan-001", "step": step, "status": status}))
		out, err := c.cmd("check", "plan", map[string]any{"action": "read", "plan_id": "plan-001"}).CombinedOutput()
		if err != nil || !strings.Contains(string(out), `"type":"output"`) {
			t.Fatalf("round %d: the plan no longer reads after a kill: %v %.400s", round, err, out)
		}
	}
	// One more update runs to the end and sweeps what the last kill may have left.
	if out, err := c.cmd("final", "plan", map[string]any{"action": "update_step", "plan_id": "plan-001", "step": 1, "status": "completed"}).CombinedOutput(); err != nil {
		t.Fatalf("an update after the crashes failed: %v %.300s", err, out)
	}
	c.noTemps(t)
}
