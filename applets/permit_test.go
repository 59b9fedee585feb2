package applets

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/coretest"
	"github.com/agentbox/agentbox/core/gate"
	"github.com/agentbox/agentbox/core/policy"
)

type scriptedAsker struct {
	answers []policy.Answer
	prompts []policy.Prompt
}

func (s *scriptedAsker) AskPermission(_ context.Context, p policy.Prompt) (policy.Answer, error) {
	s.prompts = append(s.prompts, p)
	a := s.answers[0]
	s.answers = s.answers[1:]
	return a, nil
}

func TestPermitRequestFlow(t *testing.T) {
	env := coretest.Env(t, "permit")
	asker := &scriptedAsker{answers: []policy.Answer{policy.Reject, policy.AllowSession, policy.AllowOnce, policy.Reject, policy.Reject}}
	env.Gate = &gate.PolicyGate{Asker: asker}
	root := coretest.Root(env)
	req := `{"target_type":"path","target":"docs","level":"write","description":"write the docs","reason":"you asked"}`

	res, cerr := coretest.Call(t, env, &Permit{}, req)
	if cerr != nil || res.Data.(PermitResult).Granted {
		t.Fatalf("rejected: %+v %v", res, cerr)
	}
	if len(asker.prompts) != 1 || asker.prompts[0].Request.Summary != "write the docs — you asked" {
		t.Fatalf("prompt: %+v", asker.prompts)
	}
	res, cerr = coretest.Call(t, env, &Permit{}, req)
	if cerr != nil || !res.Data.(PermitResult).Granted || res.Data.(PermitResult).Scope != "session" {
		t.Fatalf("session grant: %+v %v", res, cerr)
	}
	// Now writes directly below docs are allowed without asking; deeper ones are not
	// (the grant was not recursive).
	d, err := env.Authorize(context.Background(), core.Request{Applet: "write", Capability: core.CapFSWrite, Target: filepath.Join(root, "docs", "a.md")})
	if err != nil || d.Scope != "session" {
		t.Errorf("write under the grant: %+v %v", d, err)
	}
	// The same request again is reported as existing, without asking.
	res, _ = coretest.Call(t, env, &Permit{}, req)
	if r := res.Data.(PermitResult); !r.Granted || r.Scope != "existing" || len(asker.prompts) != 2 {
		t.Errorf("existing: %+v, %d prompts", r, len(asker.prompts))
	}
	deep := `{"target_type":"path","target":"docs/x/y.md","level":"write","description":"deep"}`
	res, cerr = coretest.Call(t, env, &Permit{}, deep)
	if cerr != nil || res.Data.(PermitResult).Scope != "once" {
		t.Fatalf("once: %+v %v", res, cerr)
	}
	list, _ := coretest.Call(t, env, &Permit{}, `{"action":"list"}`)
	gs := list.Data.(PermitList).Grants
	if len(gs) != 3 {
		t.Fatalf("grants: %+v", gs)
	}
	// The once grant is used by the next matching call only.
	for i, wantErr := range []bool{false, true} {
		_, err := env.Authorize(context.Background(), core.Request{Applet: "write", Capability: core.CapFSWrite, Target: filepath.Join(root, "docs", "x", "y.md")})
		if (err != nil) != wantErr {
			t.Errorf("use %d of the once grant: %v", i, err)
		}
	}
	rv, cerr := coretest.Call(t, env, &Permit{}, `{"action":"revoke","ids":["`+gs[0].ID+`","`+gs[1].ID+`"]}`)
	if cerr != nil || len(rv.Data.(PermitRevoke).Revoked) != 2 {
		t.Errorf("revoke: %+v %v", rv, cerr)
	}
	if _, err := env.Authorize(context.Background(), core.Request{Applet: "write", Capability: core.CapFSWrite, Target: filepath.Join(root, "docs", "a.md")}); err == nil {
		t.Error("a revoked grant still allows")
	}
}

func TestPermitValidation(t *testing.T) {
	env := coretest.Env(t, "permit")
	for _, req := range []string{
		`{"target":"x","target_type":"path","level":"write"}`, // no description
		`{"target":"a b*[","target_type":"domain","level":"read","description":"d"}`,
		`{"target":"x","level":"root","description":"d"}`,
		`{"action":"check"}`,
	} {
		if _, cerr := coretest.Call(t, env, &Permit{}, req); cerr == nil || cerr.Code != core.CodeInvalidParams {
			t.Errorf("%s: %v, want invalid_params", req, cerr)
		}
	}
	// Headless: a request that would ask is needs_input.
	if _, cerr := coretest.Call(t, env, &Permit{}, `{"target":"api.example.com","target_type":"domain","description":"call the API"}`); cerr == nil || cerr.Code != core.CodeNeedsInput {
		t.Errorf("headless request: %v", cerr)
	}
	// A person at the shell grants it directly.
	env.Interactive = true
	res, cerr := coretest.Call(t, env, &Permit{}, `{"target":"*.example.com","target_type":"domain","scope":"session"}`)
	if cerr != nil || !res.Data.(PermitResult).Granted || res.Data.(PermitResult).Grants[0].Pattern != "*.example.com" {
		t.Fatalf("person: %+v %v", res, cerr)
	}
	env.Interactive = false
	res, cerr = coretest.Call(t, env, &Permit{}, `{"action":"check","target":"https://api.example.com/v1","applet":"fetch"}`)
	if cerr != nil || res.Data.(PermitCheck).Action != "allow" || res.Data.(PermitCheck).Scope != "session" {
		t.Errorf("check after grant: %+v %v", res, cerr)
	}
}
