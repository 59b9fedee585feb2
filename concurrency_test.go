package main

// Concurrency (issue 9): 8 agentbox processes at once on one file or one store never
// lose an update: each call either lands or is refused with conflict, and what landed
// is all there.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const racers = 8

// race starts n calls at once and returns each one's envelope.
func race(t *testing.T, n int, mk func(i int) *exec.Cmd) []map[string]any {
	t.Helper()
	out := make([]map[string]any, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		cmd := mk(i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			b, _ := cmd.Output()
			var env map[string]any
			if err := json.Unmarshal(b, &env); err != nil {
				t.Errorf("racer %d: stdout is not an envelope: %v %.300q", i, err, b)
				return
			}
			out[i] = env
		}()
	}
	close(start)
	wg.Wait()
	return out
}

func errorCode(env map[string]any) string {
	meta, _ := env["metadata"].(map[string]any)
	code, _ := meta["error_code"].(string)
	return code
}

func TestConcurrentEditsOfOneFile(t *testing.T) {
	for _, sessions := range []string{"one session", "a session each"} {
		t.Run(sessions, func(t *testing.T) {
			c := newCrashEnv(t)
			var lines []string
			for i := 0; i < racers; i++ {
				lines = append(lines, fmt.Sprintf("slot %d: old", i))
			}
			// Filler between the slots makes each write take a moment.
			content := strings.Join(lines, "\n"+strings.Repeat("filler line\n", 20000)) + "\n"
			if err := os.WriteFile(filepath.Join(c.root, "shared.txt"), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			for round := 0; round < 3; round++ {
				from, to := "old", "new"
				if round%2 == 1 {
					from, to = to, from
				}
				session := func(i int) string {
					if sessions == "one session" {
						return "shared"
					}
					return fmt.Sprintf("s%d-%d", round, i)
				}
				res := race(t, racers, func(i int) *exec.Cmd {
					return c.cmd(session(i), "edit", map[string]any{"file_path": "shared.txt", "old_string": fmt.Sprintf("slot %d: %s", i, from), "new_string": fmt.Sprintf("slot %d: %s", i, to)})
				})
				got := c.read(t, "shared.txt")
				landed := 0
				for i, env := range res {
					want := fmt.Sprintf("slot %d: %s\n", i, to)
					switch code := errorCode(env); code {
					case "":
						landed++
						if !strings.Contains(got, want) {
							t.Errorf("round %d: edit %d reported success but its change is gone", round, i)
						}
					case "conflict":
						if strings.Contains(got, want) {
							t.Errorf("round %d: edit %d was refused but its change is there", round, i)
						}
						// The same edit, run again on its own, must now land.
						out, err := c.cmd(session(i), "edit", map[string]any{"file_path": "shared.txt", "old_string": fmt.Sprintf("slot %d: %s", i, from), "new_string": fmt.Sprintf("slot %d: %s", i, to)}).CombinedOutput()
						if err != nil {
							t.Fatalf("round %d: edit %d, retried alone, failed: %v %.300s", round, i, err, out)
						}
					default:
						t.Errorf("round %d: edit %d failed with %s: %v", round, i, code, env["error_text"])
					}
				}
				if strings.Count(got, "filler line\n") != 20000*(racers-1) {
					t.Fatalf("round %d: the filler between the slots changed", round)
				}
				t.Logf("%s, round %d: %d of %d concurrent edits landed, the rest were refused with conflict", sessions, round, landed, racers)
			}
		})
	}
}

func TestConcurrentTodoAndJobs(t *testing.T) {
	c := newCrashEnv(t)
	// todo: every call replaces the whole list, so the last one wins; the store must
	// never be torn and reading it back must give one caller's list whole.
	res := race(t, racers, func(i int) *exec.Cmd {
		var todos []map[string]any
		for j := 0; j < 20; j++ {
			todos = append(todos, map[string]any{"content": fmt.Sprintf("racer %d item %d", i, j), "status": "pending"})
		}
		return c.cmd("shared", "todo", map[string]any{"todos": todos})
	})
	for i, env := range res {
		if code := errorCode(env); code != "" {
			t.Errorf("todo %d: %s %v", i, code, env["error_text"])
		}
	}
	out, err := c.cmd("shared", "todo", map[string]any{}).Output()
	if err != nil {
		t.Fatalf("todo read: %v %s", err, out)
	}
	var env struct {
		Data struct {
			Todos []struct{ Content string } `json:"todos"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &env); err != nil || len(env.Data.Todos) != 20 {
		t.Fatalf("todo read back: %v, %d items: %s", err, len(env.Data.Todos), out)
	}
	owner := strings.Fields(env.Data.Todos[0].Content)[1]
	for _, td := range env.Data.Todos {
		if strings.Fields(td.Content)[1] != owner {
			t.Fatalf("the todo list mixes two callers' lists: %v", env.Data.Todos)
		}
	}

	// jobs: 8 background jobs started at once are all registered.
	res = race(t, racers, func(i int) *exec.Cmd {
		return c.cmd("shared", "bash", map[string]any{"command": fmt.Sprintf("echo job-%d; sleep 0.2", i), "run_in_background": true})
	})
	for i, env := range res {
		if code := errorCode(env); code != "" {
			t.Errorf("job %d: %s %v", i, code, env["error_text"])
		}
	}
	out, err = c.cmd("shared", "bash", map[string]any{"action": "list"}).Output()
	if err != nil {
		t.Fatalf("job list: %v %s", err, out)
	}
	for i := 0; i < racers; i++ {
		if !strings.Contains(string(out), fmt.Sprintf("echo job-%d", i)) {
			t.Errorf("job %d is missing from the list: %.1000s", i, out)
		}
	}
	// The jobs end before the test does: a supervisor still writing its exit record
	// into the session folder would make the temporary folder's removal fail.
	for i, env := range res {
		data, _ := env["data"].(map[string]any)
		job, _ := data["job"].(map[string]any)
		id, _ := job["id"].(string)
		if id == "" {
			continue
		}
		if out, err := c.cmd("shared", "bash", map[string]any{"action": "wait", "job_id": id, "wait_ms": 30000}).Output(); err != nil || !strings.Contains(string(out), `"exit_code":0`) {
			t.Errorf("job %d (%s) did not end: %v %.500s", i, id, err, out)
		}
	}
}
