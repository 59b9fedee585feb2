package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The watchdog corpora through permit check (issue 16.6): the decision a host sees
// before a call is the one the engine makes, for all 500+ lines to refuse (deny, by
// the watchdog, in bypass mode) and all 200+ ordinary ones (allowed).
func TestWatchdogCorporaThroughPermitCheck(t *testing.T) {
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	// The state folder lives outside the temporary folder, as ~/.local/state does: the
	// ordinary lines that clean /tmp would delete it too (and ask).
	state, err := os.MkdirTemp("/var/tmp", "agentbox-corpus-state-")
	if err != nil {
		home, herr := os.UserHomeDir()
		if herr != nil {
			t.Skipf("no folder outside /tmp for the state (%v, %v)", err, herr)
		}
		if state, err = os.MkdirTemp(home, ".agentbox-corpus-state-"); err != nil {
			t.Skipf("no folder outside /tmp for the state: %v", err)
		}
	}
	t.Cleanup(func() { os.RemoveAll(state) })
	vars := map[string]string{"HOME": "/home/agent", "XDG_STATE_HOME": state, "AGENTBOX_ROOT": dir,
		"AGENTBOX_HEADLESS": "1", "AGENTBOX_MODE": "bypass", "PATH": "/usr/bin:/bin", "USER": "agent",
		"CMD": "rm", "X": "rm -rf /", "SCRIPT": "rm -rf ~", "TOOL": "rm", "DEST": "/home/agent/.bashrc"}
	check := func(line string) (action, scope string) {
		req, _ := json.Marshal(map[string]string{"action": "check", "target_type": "command", "target": line})
		res := callInProcess(t, vars, dir, "permit", req)
		data, _ := res.envelope.Data.(map[string]any)
		action, _ = data["action"].(string)
		scope, _ = data["scope"].(string)
		return action, scope
	}
	let, refused := 0, 0
	refuse, ordinary := corpus(t, "refuse.txt"), corpus(t, "ordinary.txt")
	for _, line := range refuse {
		if action, scope := check(line); action != "deny" || scope != "watchdog" {
			let++
			t.Errorf("permit check %q: %s (%s), want deny by the watchdog", line, action, scope)
		}
	}
	for _, line := range ordinary {
		if action, scope := check(line); action != "allow" {
			refused++
			t.Errorf("permit check of ordinary %q: %s (%s)", line, action, scope)
		}
	}
	t.Logf("through permit check: %d to refuse, %d let through; %d ordinary, %d refused", len(refuse), let, len(ordinary), refused)
}

func corpus(t *testing.T, name string) []string {
	f, err := os.Open(filepath.Join("testdata", "watchdog", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if _, line, ok := strings.Cut(l, "\t"); ok {
			l = line
		}
		out = append(out, strings.ReplaceAll(l, `\n`, "\n"))
	}
	return out
}
