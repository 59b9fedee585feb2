package policy

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// fakeSplit stands in for core/shell's Analyze in these tests: it walks mvdan's syntax
// tree, yields every call with its redirections, marks unresolved expansions by
// keeping their source text ($X, $(...)), and unwraps a few wrappers and sh -c.
func fakeSplit(line string) (*Analysis, error) {
	a := &Analysis{}
	if err := splitInto(a, line, 0); err != nil {
		return nil, err
	}
	return a, nil
}

func splitInto(a *Analysis, line string, depth int) error {
	f, err := syntax.NewParser().Parse(strings.NewReader(line), "")
	if err != nil {
		return err
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		var reds []Redirect
		for _, r := range st.Redirs {
			t := ""
			if r.Word != nil {
				t = wordText(a, r.Word)
			}
			reds = append(reds, Redirect{Op: r.Op.String(), Target: t})
		}
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok {
			if len(reds) > 0 {
				a.Commands = append(a.Commands, SimpleCommand{Redirects: reds, Context: "compound"})
			}
			return true
		}
		var argv []string
		for _, w := range call.Args {
			argv = append(argv, wordText(a, w))
		}
		for _, as := range call.Assigns {
			if as.Value != nil {
				wordText(a, as.Value)
			}
		}
		addCommand(a, argv, reds, depth)
		return true
	})
	return nil
}

func addCommand(a *Analysis, argv []string, reds []Redirect, depth int) {
	if len(argv) == 0 {
		if len(reds) > 0 {
			a.Commands = append(a.Commands, SimpleCommand{Redirects: reds})
		}
		return
	}
	a.Commands = append(a.Commands, SimpleCommand{Argv: argv, Redirects: reds})
	name := path.Base(argv[0])
	rest := argv[1:]
	switch name {
	case "sudo", "env", "nice", "nohup", "timeout", "time", "command", "exec", "xargs", "stdbuf", "doas", "builtin":
		for len(rest) > 0 && (strings.HasPrefix(rest[0], "-") || strings.Contains(rest[0], "=") && name == "env") {
			if rest[0] == "-n" || rest[0] == "-I" || rest[0] == "-u" {
				rest = rest[1:]
			}
			rest = rest[1:]
		}
		if name == "timeout" && len(rest) > 0 {
			rest = rest[1:]
		}
		addCommand(a, rest, nil, depth)
	case "sh", "bash", "dash", "zsh":
		for i, w := range rest {
			if w == "-c" && i+1 < len(rest) && depth < 5 {
				if err := splitInto(a, rest[i+1], depth+1); err != nil {
					a.Uncertain = append(a.Uncertain, "sh -c: "+err.Error())
				}
			}
		}
	case "eval":
		a.Uncertain = append(a.Uncertain, "eval")
		if depth < 5 {
			_ = splitInto(a, strings.Join(rest, " "), depth+1)
		}
	case "find":
		for i, w := range rest {
			if (w == "-exec" || w == "-execdir" || w == "-ok") && i+1 < len(rest) {
				end := len(rest)
				for j := i + 1; j < len(rest); j++ {
					if rest[j] == ";" || rest[j] == "+" {
						end = j
						break
					}
				}
				addCommand(a, rest[i+1:end], nil, depth)
			}
		}
	}
}

func wordText(a *Analysis, w *syntax.Word) string {
	var b strings.Builder
	var parts func(ps []syntax.WordPart, quoted bool)
	parts = func(ps []syntax.WordPart, quoted bool) {
		for _, p := range ps {
			switch p := p.(type) {
			case *syntax.Lit:
				v := p.Value
				for i := 0; i < len(v); i++ {
					if v[i] == '\\' && i+1 < len(v) && (!quoted || strings.IndexByte("$`\"\\", v[i+1]) >= 0) {
						i++
					}
					b.WriteByte(v[i])
				}
			case *syntax.SglQuoted:
				b.WriteString(p.Value)
			case *syntax.DblQuoted:
				parts(p.Parts, true)
			default:
				b.WriteString("${expansion}")
				a.Uncertain = append(a.Uncertain, "expansion")
			}
		}
	}
	parts(w.Parts, false)
	return b.String()
}
