package policy

import (
	"slices"
	"testing"
)

// Command rules see through global options (issue 15: deny bash(git push *) did not hold
// for git -C . push, git -c a=b push, git --no-pager push).
func TestRulesSeeThroughGlobalOptions(t *testing.T) {
	root := t.TempDir()
	p := New(Env{Roots: []string{root}}, ModeBypass,
		mustRule(t, ScopeManifest, "bash", "git push *", Deny),
		mustRule(t, ScopeManifest, "bash", "git push", Deny),
		mustRule(t, ScopeManifest, "bash", "docker rm *", Deny),
		mustRule(t, ScopeManifest, "bash", "kubectl delete *", Deny),
		mustRule(t, ScopeManifest, "bash", "npm publish *", Deny),
		mustRule(t, ScopeManifest, "bash", "cargo publish *", Deny),
		mustRule(t, ScopeManifest, "bash", "go run *", Deny),
	)
	check := func(line string) Action {
		return p.Evaluate(Request{Applet: "bash", Capability: CapShellRun, Target: line, Cwd: root}).Action
	}
	for _, line := range []string{
		"git push", "git push origin main", "git -C . push", "git -C. push origin", "git -c a=b push",
		"git --no-pager push", "git -P push", "git --git-dir=.git --work-tree . push", "git --git-dir .git push -f",
		"git -c user.name=x -C sub --no-pager push --force", "/usr/bin/git -C . push",
		"cd x && git --namespace n push", "docker --context prod rm -f x", "docker -H tcp://h:2375 rm x",
		"kubectl -n prod delete pod x", "kubectl --context=prod --namespace prod delete ns y",
		"npm --prefix ./pkg publish --tag x", "npm -w a publish", "cargo +nightly publish --dry-run",
		"cargo -Z unstable-options publish", "go -C ./tool run .",
	} {
		if a := check(line); a != Deny {
			t.Errorf("%q: %v, want deny", line, a)
		}
	}
	for _, line := range []string{"git -C . status", "git log --oneline", "git -c color.ui=never diff", "docker ps", "kubectl -n prod get pods", "go -C x build ./..."} {
		if a := check(line); a != Allow {
			t.Errorf("%q: %v, want allow (bypass)", line, a)
		}
	}

	// An allow rule does not see through them: -c can plant code.
	p = New(Env{Roots: []string{root}}, ModeDefault, mustRule(t, ScopeUser, "bash", "git status", Allow))
	if a := check("git status"); a != Allow {
		t.Errorf("git status: %v", a)
	}
	if a := check("git -c core.fsmonitor=evil status"); a == Allow {
		t.Errorf("allow bash(git status) allowed git -c core.fsmonitor=evil status")
	}
}

func TestWithoutGlobalOptions(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"git", "-C", ".", "push"}, []string{"git", "push"}},
		{[]string{"git", "--no-pager", "log", "-C", "x"}, []string{"git", "log", "-C", "x"}},
		{[]string{"git", "-C"}, []string{"git"}},
		{[]string{"git", "--", "push"}, []string{"git", "push"}},
		{[]string{"ls", "-l", "x"}, []string{"ls", "-l", "x"}},
	} {
		got := withoutGlobalOptions(tc.in, nil, nil)[0].argv
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
	// The other forms a deny rule must see (a red-team helper's findings).
	for _, tc := range []struct{ in, want []string }{
		{[]string{"git", "-c", "alias.p=push", "p", "origin"}, []string{"git", "push", "origin"}},
		{[]string{"git", "-c", "alias.ps=!git push origin master", "ps"}, []string{"git", "push", "origin", "master"}},
		{[]string{"kubectl", "--username", "u", "delete", "pod"}, []string{"kubectl", "delete", "pod"}},
		{[]string{"docker", "--debug", "image", "push", "x"}, []string{"docker", "push", "x"}},
		{[]string{"npm", "-C", ".", "publish"}, []string{"npm", "publish"}},
		{[]string{"npm", "pub"}, []string{"npm", "publish"}},
		{[]string{"git", "send-pack", "origin", "master"}, []string{"git", "push", "origin", "master"}},
	} {
		found := false
		for _, v := range withoutGlobalOptions(tc.in, nil, nil) {
			found = found || slices.Equal(v.argv, tc.want)
		}
		if !found {
			t.Errorf("%q: no form %q among %v", tc.in, tc.want, withoutGlobalOptions(tc.in, nil, nil))
		}
	}
}
