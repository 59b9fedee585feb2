package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentbox/agentbox/applets"
	"github.com/agentbox/agentbox/cli"
	"github.com/agentbox/agentbox/core/sandbox"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain maps `agentbox` and every applet name and alias to the real main, so the
// scripts exercise subcommand dispatch and argv[0] dispatch alike.
func TestMain(m *testing.M) {
	// No test starts grep's background index builds unless it asks for them
	// (AGENTBOX_INDEX=on): a build of a scale test's tree would outlive the test.
	if os.Getenv("AGENTBOX_INDEX") == "" {
		os.Setenv("AGENTBOX_INDEX", "off")
	}
	run := func() { os.Exit(cli.Main(os.Args, applets.All, cli.OSEnv())) }
	cmds := map[string]func(){"agentbox": run, "ab-skill": run}
	for _, s := range applets.All {
		cmds[s.Name] = run
		for _, a := range s.Aliases {
			cmds[a] = run
		}
	}
	testscript.Main(cleaningM{m}, cmds)
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: false,
		Setup: func(e *testscript.Env) error {
			e.Setenv("XDG_STATE_HOME", e.WorkDir+"/.state")
			e.Setenv("XDG_CONFIG_HOME", e.WorkDir+"/.config")
			e.Setenv("AGENTBOX_ROOT", e.WorkDir)
			e.Setenv("NO_COLOR", "1")
			// No script may reach a real terminal. Scripts test their applet, not the
			// permission policy, so they run in bypass mode; the policy's own scripts
			// (permit*.txtar, policy*.txtar) set AGENTBOX_MODE themselves.
			e.Setenv("AGENTBOX_HEADLESS", "1")
			e.Setenv("AGENTBOX_MODE", "bypass")
			// task's scripts configure this stand-in agent, which calls agentbox itself.
			fake, err := filepath.Abs("testdata/task/fake-agent")
			if err != nil {
				return err
			}
			e.Setenv("FAKE_AGENT", fake)
			return nil
		},
		// [landlock]: the kernel can confine a sandboxed command's writes; [netcut]: it can
		// also cut its network (user namespaces, or Landlock's TCP rules).
		Condition: func(cond string) (bool, error) {
			caps := sandbox.Probe()
			switch cond {
			case "landlock":
				return caps.LandlockABI > 0, nil
			case "netcut":
				return caps.UserNS || caps.LandlockABI >= 4, nil
			case "userns":
				return caps.UserNS, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// httpserve DIR: serves DIR over HTTP on loopback for the rest of the script and
			// sets $SERVER to its URL.
			"httpserve": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: httpserve DIR")
				}
				srv := httptest.NewServer(http.FileServer(http.Dir(ts.MkAbs(args[0]))))
				ts.Defer(srv.Close)
				ts.Setenv("SERVER", srv.URL)
			},
		},
	})
}
