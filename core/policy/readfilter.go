package policy

// ReadFilter returns what a walk (ls, glob, grep) asks about every entry it visits: true
// when the policy would not let applet read that path, so the entry is left out and
// counted rather than listed or searched. It is nil when no rule could refuse a read in
// the workspace, so the common walk pays nothing. A path that would ask is left out
// too: a walk cannot stop to ask about each file.
func (p *Policy) ReadFilter(applet string) func(abs string, isDir bool) bool {
	restricts := func(r *Rule) bool {
		if r.Action == Allow {
			return false
		}
		switch r.Permission {
		case "*", CapFSRead, applet, "read":
			return true
		}
		return false
	}
	restricted := false
	for _, list := range [][]*Rule{p.rules, p.tighten} {
		for _, r := range list {
			if restricts(r) {
				restricted = true
			}
		}
	}
	if !restricted {
		return nil
	}
	return func(abs string, isDir bool) bool {
		for _, app := range []string{applet, "read"} {
			c := Check{Applet: app, Capability: CapFSRead, kind: kindPath, Path: abs, Inside: true, Display: abs}
			if d := p.decide(&c); d.Action != Allow {
				return true
			}
		}
		return false
	}
}
