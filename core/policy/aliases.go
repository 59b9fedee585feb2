package policy

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// The aliases tools read from their own config files: a deny rule on git push must
// hold for git pp when ~/.gitconfig says pp = push, and a rule on cargo publish for
// cargo pb when the repository's .cargo/config.toml says pb = "publish". Only the
// [alias] sections are read, of small files, and nothing they include.

// maxAliasFile bounds a config file read for its aliases.
const maxAliasFile = 256 << 10

// loadAliases reads git's and cargo's aliases: the user's (home, XDG config) and the
// workspace roots' (.git/config, .cargo/config.toml and their parents' cargo configs).
func loadAliases(home, xdgConfig string, roots []string) map[string]map[string]string {
	out := map[string]map[string]string{}
	add := func(tool string, m map[string]string) {
		for k, v := range m {
			if out[tool] == nil {
				out[tool] = map[string]string{}
			}
			out[tool][k] = v
		}
	}
	if xdgConfig == "" && home != "" {
		xdgConfig = filepath.Join(home, ".config")
	}
	var gitFiles, cargoFiles []string
	if home != "" {
		gitFiles = append(gitFiles, filepath.Join(home, ".gitconfig"))
		cargoFiles = append(cargoFiles, filepath.Join(home, ".cargo", "config"), filepath.Join(home, ".cargo", "config.toml"))
	}
	if xdgConfig != "" {
		gitFiles = append(gitFiles, filepath.Join(xdgConfig, "git", "config"))
	}
	for _, r := range roots {
		gitFiles = append(gitFiles, filepath.Join(r, ".git", "config"))
		for d := r; ; d = filepath.Dir(d) {
			cargoFiles = append(cargoFiles, filepath.Join(d, ".cargo", "config"), filepath.Join(d, ".cargo", "config.toml"))
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	for _, f := range gitFiles {
		add("git", aliasSection(f, false))
	}
	for _, f := range cargoFiles {
		add("cargo", aliasSection(f, true))
	}
	return out
}

// aliasSection is the [alias] section of an INI (git) or TOML (cargo) file: name to
// what it expands to (a TOML list of words joined by spaces).
func aliasSection(file string, toml bool) map[string]string {
	fi, err := os.Stat(file)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxAliasFile {
		return nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	in := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = strings.EqualFold(strings.Trim(line, "[] \t"), "alias")
			continue
		}
		if !in || line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		name, val, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		name, val = strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(val)
		if toml && strings.HasPrefix(val, "[") {
			var words []string
			for _, w := range strings.Split(strings.Trim(val, "[]"), ",") {
				words = append(words, strings.Trim(strings.TrimSpace(w), `"'`))
			}
			val = strings.Join(words, " ")
		}
		out[strings.Trim(name, `"`)] = strings.Trim(val, `"'`)
	}
	return out
}
