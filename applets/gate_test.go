package applets

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/coretest"
	"github.com/agentbox/agentbox/core/gate"
)

// policyEnv is an Env whose gate is the real policy (mode default, headless) with the
// given user config.
func policyEnv(t *testing.T, applet, config string) *core.Env {
	t.Helper()
	cfg := t.TempDir()
	writeConfig(t, filepath.Join(cfg, "agentbox", "config.json"), config)
	env := withVars(coretest.Env(t, applet), map[string]string{"XDG_CONFIG_HOME": cfg, "AGENTBOX_MODE": "default"})
	env.Gate = &gate.PolicyGate{}
	return env
}

// TestDecisionInMetadata: every applet with a side effect goes through the gate, and
// its result names the decision and the rule that made it.
func TestDecisionInMetadata(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "hello")
	}))
	defer srv.Close()
	config := `{"permissions":{"allow":["write(new.txt)","edit(old.txt)","patch(p.txt)","bash(echo *)","bash(sleep *)","bash(kill *)","fetch(127.0.0.1)","fs.write(dl.txt)"]}}`
	cases := []struct {
		applet string
		cmd    func() core.Command
		req    string
		rule   string
		key    string
	}{
		{"write", func() core.Command { return &Write{CreateDirectories: true} }, `{"file_path":"new.txt","content":"x"}`, `allow write "new.txt"`, "decision"},
		{"edit", func() core.Command { return &Edit{FuzzyThreshold: 0.7} }, `{"file_path":"old.txt","old_string":"a","new_string":"b"}`, `allow edit "old.txt"`, "decision"},
		{"patch", func() core.Command { return &Patch{} }, `{"patch":"*** Begin Patch\n*** Add File: p.txt\n+x\n*** End Patch"}`, `allow patch "p.txt"`, "decision"},
		{"bash", newBashCmd, `{"command":"echo hi"}`, `allow bash "echo *"`, "decision"},
		{"fetch", func() core.Command { return &Fetch{Method: "GET", TimeoutMs: 5000} }, fmt.Sprintf(`{"url":%q}`, srv.URL), `allow fetch "127.0.0.1"`, "decision"},
		{"fetch", func() core.Command { return &Fetch{Method: "GET", TimeoutMs: 5000} }, fmt.Sprintf(`{"url":%q,"download_to":"dl.txt"}`, srv.URL), `allow fs.write "dl.txt"`, "download_decision"},
	}
	for _, c := range cases {
		env := policyEnv(t, c.applet, config)
		os.WriteFile(filepath.Join(coretest.Root(env), "old.txt"), []byte("a\n"), 0o644)
		res, cerr := coretest.Call(t, env, c.cmd(), c.req)
		if cerr != nil {
			t.Errorf("%s %s: %v", c.applet, c.req, cerr)
			continue
		}
		d, ok := res.Meta[c.key].(core.Decision)
		if !ok || d.Action != "allow" || !strings.HasPrefix(d.Rule, c.rule) || d.Scope != "user" {
			t.Errorf("%s %s: metadata.%s = %#v, want allow by %s (user)", c.applet, c.req, c.key, res.Meta[c.key], c.rule)
		}
	}

	// A background job's kill is a side effect too.
	env := policyEnv(t, "bash", config)
	res, cerr := coretest.Call(t, env, newBashCmd(), `{"command":"sleep 30","run_in_background":true}`)
	if cerr != nil {
		t.Fatal(cerr)
	}
	id := res.Data.(*BashResult).Job.ID
	res, cerr = coretest.Call(t, env, newBashCmd(), `{"action":"kill","job_id":"`+id+`"}`)
	if cerr != nil {
		t.Fatal(cerr)
	}
	if d, ok := res.Meta["decision"].(core.Decision); !ok || d.Action != "allow" || !strings.HasPrefix(d.Rule, `allow bash "kill *"`) {
		t.Errorf("kill: metadata.decision = %#v", res.Meta["decision"])
	}

	// A refusal carries the decision too.
	_, cerr = coretest.Call(t, policyEnv(t, "write", config), &Write{CreateDirectories: true}, `{"file_path":"other.txt","content":"x"}`)
	if cerr == nil || cerr.Code != core.CodeNeedsInput {
		t.Fatalf("unlisted write: %v", cerr)
	}
	if d, ok := cerr.Meta["decision"].(core.Decision); !ok || d.Action != "deny" || d.Rule != "mode default" {
		t.Errorf("refusal: metadata.decision = %#v", cerr.Meta["decision"])
	}
}

// TestPatchEveryFileDecided: a deny rule on one file of a multi-file patch (or on the
// source of a move) stops the whole patch; nothing is written.
func TestPatchEveryFileDecided(t *testing.T) {
	config := `{"permissions":{"mode":"accept-edits","deny":["fs.write(secrets/**)"]}}`
	for name, p := range map[string]string{
		"second file": "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Add File: secrets/k\n+x\n*** End Patch",
		"move source": "*** Begin Patch\n*** Update File: secrets/key\n*** Move to: b.txt\n@@\n-key\n+key\n*** End Patch",
	} {
		env := policyEnv(t, "patch", config)
		env = withVars(env, map[string]string{"AGENTBOX_MODE": ""})
		root := coretest.Root(env)
		os.MkdirAll(filepath.Join(root, "secrets"), 0o755)
		os.WriteFile(filepath.Join(root, "secrets", "key"), []byte("key\n"), 0o644)
		_, cerr := coretest.Call(t, env, &Patch{}, fmt.Sprintf(`{"patch":%q}`, p))
		if cerr == nil || cerr.Code != core.CodePermissionDenied || !strings.Contains(cerr.Message, "secrets") {
			t.Errorf("%s: %v, want permission_denied naming secrets", name, cerr)
		}
		for _, f := range []string{"a.txt", "b.txt", "secrets/k"} {
			if _, err := os.Stat(filepath.Join(root, f)); err == nil {
				t.Errorf("%s: %s was written", name, f)
			}
		}
		if b, _ := os.ReadFile(filepath.Join(root, "secrets", "key")); string(b) != "key\n" {
			t.Errorf("%s: secrets/key changed: %q", name, b)
		}
	}
}

func newBashCmd() core.Command {
	b := newBash()
	b.TimeoutMs = int(10 * time.Second / time.Millisecond)
	return b
}

// TestPlanThroughTheGate: plan writes pass the gate like any other write. The mode lets
// the plan applet's own folder through where it would ask for other writes; read-only
// mode and deny rules refuse before anything, the folder included, is created.
func TestPlanThroughTheGate(t *testing.T) {
	create := `{"action":"create","title":"T","steps":[{"description":"a"}]}`
	env := policyEnv(t, "plan", `{}`)
	res, cerr := coretest.Call(t, env, &Plan{}, create)
	if cerr != nil {
		t.Fatalf("default mode refused a plan: %v", cerr)
	}
	if d, ok := res.Meta["decision"].(core.Decision); !ok || d.Action != "allow" || d.Scope != "mode" {
		t.Errorf("decision %#v, want allow by the mode", res.Meta["decision"])
	}
	// The same mode still asks for a write elsewhere (headless: needs_input).
	if _, cerr := coretest.Call(t, env, &Write{}, `{"file_path":".agentbox/other.md","content":"x"}`); cerr == nil || cerr.Code != core.CodeNeedsInput {
		t.Errorf("a write outside the plan folder: %v, want needs_input", cerr)
	}

	for name, env := range map[string]*core.Env{
		"read-only": withVars(policyEnv(t, "plan", `{}`), map[string]string{"AGENTBOX_MODE": "read-only"}),
		"deny rule": policyEnv(t, "plan", `{"permissions":{"deny":["plan"]}}`),
	} {
		for _, req := range []string{create, `{"action":"update_step","plan_id":"plan-001","step":1,"status":"completed"}`} {
			if _, cerr := coretest.Call(t, env, &Plan{}, req); cerr == nil || cerr.Code != core.CodePermissionDenied {
				t.Errorf("%s: %s: %v, want permission_denied", name, req, cerr)
			}
		}
		if _, err := os.Stat(filepath.Join(coretest.Root(env), PlanDir)); !os.IsNotExist(err) {
			t.Errorf("%s: the plan folder was created: %v", name, err)
		}
	}
}
