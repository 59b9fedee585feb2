// Package coretest builds in-memory environments for applet tests: a temporary
// workspace root and a private session directory, so a test can call an
// applet's Run directly, or send it a JSON request the way an agent does.
package coretest

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/gate"
)

// Env returns an Env rooted at a fresh temporary directory (the workspace root and the
// working directory), with its own session state directory.
func Env(t testing.TB, applet string) *core.Env {
	t.Helper()
	root := t.TempDir()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	state := t.TempDir()
	sess, err := core.NewSession(state, "test", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"HOME": t.TempDir(), "XDG_STATE_HOME": state, "AGENTBOX_HEADLESS": "1"}
	ws := core.NewWorkspace(root)
	t.Cleanup(ws.Close)
	return &core.Env{
		Applet:  applet,
		Stderr:  &bytes.Buffer{},
		Getenv:  func(k string) string { return vars[k] },
		Now:     time.Now,
		Cwd:     root,
		WS:      ws,
		Session: sess,
		Gate:    gate.DefaultGate{},
	}
}

// Root is the workspace root of an Env made by Env.
func Root(env *core.Env) string { return env.WS.Roots[0] }

// Call decodes a JSON request into cmd exactly as JSON mode does, then runs it.
func Call(t testing.TB, env *core.Env, cmd core.Command, request string) (*core.Result, *core.Error) {
	t.Helper()
	if err := core.DecodeRequest(strings.NewReader(request), cmd); err != nil {
		return nil, core.AsError(err)
	}
	res, err := cmd.Run(context.Background(), env)
	if err != nil {
		return nil, core.AsError(err)
	}
	return res, nil
}

// Text renders a result as text mode would, without colour.
func Text(res *core.Result) string {
	var buf bytes.Buffer
	core.RenderText(core.NewPrinter(&buf, false), res)
	return buf.String()
}
