package policy

import (
	"strings"
	"testing"
)

// FuzzCompile: any rule text either compiles or fails with an error; a compiled rule
// matches every kind of target without panicking, and a deny rule is never weaker
// than an allow rule with the same text.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{"bash\x00npm run test *", "write\x00src/**/*.go", "read\x00~/notes", "fetch\x00*.example.com:443",
		"*\x00*", "fs.write\x00{workspace}/gen/", "bash\x00git log --format=*", "write\x00/w/proj/\\*.txt", "bash\x00'a b' \"c\" *",
		"net.fetch\x00[::1]:8080", "fs.read\x00[a-", "bash\x00npm run test:*"} {
		f.Add(s, "npm run test -- -u && rm -rf ~ > /etc/x")
	}
	p := New(Env{Home: "/home/u", Roots: []string{ws}}, ModeDefault)
	f.Fuzz(func(t *testing.T, rule, target string) {
		perm, pat, _ := strings.Cut(rule, "\x00")
		allow, err := Compile(perm, pat, Allow)
		if err != nil {
			return
		}
		deny, err := Compile(perm, pat, Deny)
		if err != nil {
			t.Fatalf("compiles as allow but not as deny: %v", err)
		}
		_ = allow.String()
		for _, req := range []Request{
			{Applet: "bash", Capability: CapShellRun, Target: target},
			{Applet: "write", Capability: CapFSWrite, Target: target},
			{Applet: "fetch", Capability: CapNetFetch, Target: target},
		} {
			for _, c := range p.Checks(req) {
				okA, _, _ := allow.match(&c, &p.Env)
				okD, _, _ := deny.match(&c, &p.Env)
				if okA && !okD {
					t.Fatalf("rule %q/%q matches %+v as allow but not as deny", perm, pat, c)
				}
			}
		}
	})
}

// FuzzShorthand: the "permission(pattern)" form never panics and round-trips.
func FuzzShorthand(f *testing.F) {
	for _, s := range []string{"bash(npm test *)", "read", "write(a(b))", "(x)", "fetch(", "  edit ( src/** )"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		perm, pat, err := ParseShorthand(s)
		if err != nil {
			return
		}
		if perm == "" {
			t.Fatalf("%q: empty permission without an error", s)
		}
		again := perm
		if strings.Contains(s, "(") {
			again += "(" + pat + ")"
		}
		p2, pat2, err := ParseShorthand(again)
		if err != nil || p2 != perm || pat2 != pat {
			t.Fatalf("%q -> %q %q does not round-trip: %q %q %v", s, perm, pat, p2, pat2, err)
		}
	})
}

// FuzzSection: any config file either loads or fails with a ConfigError (its
// permission and watchdog sections alike).
func FuzzSection(f *testing.F) {
	for _, s := range []string{`{"permissions":{"allow":["bash(go test *)"],"rules":[{"permission":"write","pattern":"src/**","action":"deny"}]}}`,
		`{"permissions":{"mode":"bypass","trusted_roots":["/x"]}}`, `{}`, `{"permissions":null}`, `[]`,
		`{"watchdog":{"strict":true,"disable":["kill-all"],"deny_commands":["terraform"],"protected_files":["/srv/*"]}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, scope := range []Scope{ScopeUser, ScopeProject} {
			w, err := ParseWatchdog([]byte(s), "/c.json", scope)
			if err != nil {
				if _, ok := err.(*ConfigError); !ok {
					t.Fatalf("watchdog error is %T, not a ConfigError: %v", err, err)
				}
			} else if w != nil && scope == ScopeProject && len(w.Disable) > 0 {
				t.Fatalf("a project config switched watchdog rules off: %+v", w)
			}
		}
		_, rules, err := ParseSection([]byte(s), "/c.json", ScopeUser)
		if err != nil {
			if _, ok := err.(*ConfigError); !ok {
				t.Fatalf("error is %T, not a ConfigError: %v", err, err)
			}
			return
		}
		for _, r := range rules {
			if r.Scope != ScopeUser || r.File != "/c.json" || r.Where == "" {
				t.Fatalf("rule without its origin: %+v", r)
			}
		}
	})
}

// FuzzEvaluate: evaluating any command line (through the stand-in analyser) never
// panics, and a line allowed with a deny rule present is allowed without it too.
func FuzzEvaluate(f *testing.F) {
	for _, s := range []string{"npm test && rm -rf ~", "echo $(rm x)", "sudo env A=1 rm x", "cat <(rm x) > /etc/y", `bash -c "rm x"`, "a | b; c & d"} {
		f.Add(s)
	}
	allow := mustRule(f, ScopeUser, "bash", "*", Allow)
	deny := mustRule(f, ScopeUser, "bash", "rm *", Deny)
	with := newPolicy(f, ModeDefault, allow, deny)
	f.Fuzz(func(t *testing.T, line string) {
		d := with.Evaluate(bash(line))
		if d.Action == Allow {
			for _, c := range with.Checks(bash(line)) {
				if len(c.Argv) > 0 && (c.Argv[0] == "rm" || strings.HasSuffix(c.Argv[0], "/rm")) {
					t.Fatalf("%q allowed although it runs rm", line)
				}
			}
		}
	})
}
