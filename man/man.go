// Package man generates agentbox's man pages from the applet table: agentbox(1) and one
// page per applet, agentbox-NAME(1), with every flag, its default and allowed values read
// from the same kong model the command line uses. scripts/gen writes them into this
// directory, and a test fails when they are stale.
package man

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/agentbox/agentbox/cli/flags"
	"github.com/agentbox/agentbox/core"
	"github.com/alecthomas/kong"
)

// Pages returns file name → roff source for every page.
func Pages(specs []core.Spec) (map[string]string, error) {
	pages := map[string]string{"agentbox.1": mainPage(specs)}
	for i := range specs {
		s := &specs[i]
		page, err := appletPage(s)
		if err != nil {
			return nil, err
		}
		pages["agentbox-"+s.Name+".1"] = page
	}
	return pages, nil
}

// esc makes text safe for roff: backslashes, and lines that would start a request.
func esc(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	var b strings.Builder
	for _, r := range s {
		if r > 127 { // groff reads ASCII; other characters go in as \[uXXXX]
			fmt.Fprintf(&b, `\[u%04X]`, r)
			continue
		}
		b.WriteRune(r)
	}
	s = b.String()
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			lines[i] = `\&` + l
		}
	}
	return strings.Join(lines, "\n")
}

func header(name, summary string) string {
	return fmt.Sprintf(".TH %s 1 \"\" \"agentbox\" \"agentbox manual\"\n.SH NAME\n%s \\- %s\n", strings.ToUpper(esc(name)), esc(name), esc(summary))
}

func mainPage(specs []core.Spec) string {
	var b strings.Builder
	b.WriteString(header("agentbox", "the tool layer of a coding agent, in one binary"))
	b.WriteString(".SH SYNOPSIS\n.nf\nagentbox APPLET [flags] [args]\necho '{...}' | agentbox APPLET\nagentbox \\-\\-list | \\-\\-version | install \\-\\-links DIR [\\-\\-prefix P]\nagentbox index [\\-\\-remove] [\\-\\-json] [DIR]\n.fi\n")
	b.WriteString(".SH DESCRIPTION\n" + esc("agentbox carries the built-in tools of an LLM coding agent as applets. An agent sends one JSON object on stdin (the applet name followed by no arguments, stdin not a terminal) and reads one JSON envelope {type, data | error_text, metadata} on stdout. A person uses flags and arguments and gets text. Linked under an applet's name (or with a prefix, ab-read), the binary runs that applet.") + "\n")
	b.WriteString(".SH APPLETS\n")
	for _, s := range specs {
		fmt.Fprintf(&b, ".TP\n.B %s\n%s (see agentbox\\-%s(1))\n", esc(s.Name), esc(s.Summary), esc(s.Name))
	}
	b.WriteString(".SH GLOBAL FLAGS\n")
	for _, g := range [][2]string{
		{"--json", "print the JSON envelope"}, {"--text", "print text"},
		{"--root DIR", "a workspace root (repeatable; also AGENTBOX_ROOT)"}, {"--session ID", "the session (also AGENTBOX_SESSION)"},
		{"--mode MODE", "default, accept-edits, read-only or bypass (also AGENTBOX_MODE)"}, {"--manifest FILE", "host manifest (also AGENTBOX_MANIFEST)"},
		{"--color WHEN", "auto, always or never; NO_COLOR is honoured"},
	} {
		fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", esc(g[0]), esc(g[1]))
	}
	b.WriteString(".SH EXIT STATUS\n0 output, 1 tool error (the envelope is still printed), 2 usage error, 130 interrupted.\n")
	b.WriteString(".SH ERROR CODES\n")
	var codes []string
	for _, c := range core.ErrorCodes {
		codes = append(codes, string(c))
	}
	b.WriteString(esc(strings.Join(codes, ", ")) + "\n")
	return b.String()
}

func appletPage(s *core.Spec) (string, error) {
	k, err := flags.NewParser(s, "agentbox "+s.Name, s.New(), io.Discard, io.Discard)
	if err != nil {
		return "", err
	}
	node := k.Model.Node
	var b strings.Builder
	b.WriteString(header("agentbox-"+s.Name, s.Summary))
	b.WriteString(".SH SYNOPSIS\n.B agentbox " + esc(s.Name) + "\n[flags]")
	for _, p := range node.Positional {
		if p.Required {
			fmt.Fprintf(&b, " %s", esc("<"+p.Name+">"))
		} else {
			fmt.Fprintf(&b, " %s", esc("[<"+p.Name+">]"))
		}
	}
	b.WriteString("\n.PP\nAs an agent calls it:\n.nf\n" + esc("echo '"+orDefault(s.Example, "{}")+"' | agentbox "+s.Name) + "\n.fi\n")
	b.WriteString(".SH DESCRIPTION\n" + esc(orDefault(s.Description, s.Summary)) + "\n")
	if len(s.Aliases) > 0 {
		b.WriteString(".PP\nAlso runs as: " + esc(strings.Join(s.Aliases, ", ")) + ".\n")
	}
	if len(node.Positional) > 0 {
		b.WriteString(".SH ARGUMENTS\n")
		for _, p := range node.Positional {
			fmt.Fprintf(&b, ".TP\n.I %s\n%s\n", esc(p.Name), esc(valueHelp(p)))
		}
	}
	b.WriteString(".SH FLAGS\n")
	fl := node.Flags
	sort.SliceStable(fl, func(i, j int) bool { return fl[i].Name < fl[j].Name })
	for _, f := range fl {
		if f.Hidden {
			continue
		}
		name := "--" + f.Name
		if f.Short != 0 {
			name = "-" + string(f.Short) + ", " + name
		}
		if f.Negated {
			name += ", --no-" + f.Name
		}
		if !f.IsBool() {
			name += " " + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		}
		fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", esc(name), esc(valueHelp(f.Value)))
	}
	b.WriteString(".SH JSON FIELDS\n" + esc(core.ParamsOf(s.New()).AcceptedNames()) + "\n")
	b.WriteString(".SH SEE ALSO\nagentbox(1)\n")
	return b.String(), nil
}

// valueHelp is the help text with the allowed values and the default, as --help shows.
func valueHelp(v *kong.Value) string {
	h := v.Help
	if v.Enum != "" {
		h += " (one of: " + strings.ReplaceAll(v.Enum, ",", ", ") + ")"
	}
	if v.HasDefault && v.Default != "" && !v.IsBool() {
		h += " (default: " + v.Default + ")"
	}
	return h
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
