package gate

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/policy"
)

// HostConfig reads the top-level section key of the host's own configs: the manifest
// (--manifest, AGENTBOX_MANIFEST) if it has one, else the user config. A project
// config is never read for it: a repository must not choose the programs agentbox
// starts. file names where the section came from; a missing section is (nil, "", nil).
func HostConfig(env *core.Env, key string) (raw json.RawMessage, file string, err error) {
	files := []string{}
	if m := env.Getenv("AGENTBOX_MANIFEST"); m != "" {
		if !filepath.IsAbs(m) {
			m = filepath.Join(env.Cwd, m)
		}
		files = append(files, m)
	}
	if u := policy.UserConfigPath(env.Getenv); u != "" {
		files = append(files, u)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, f, core.Errorf(core.CodeInvalidParams, "cannot read the config %s: %v", f, err)
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal(b, &top); err != nil {
			return nil, f, core.Errorf(core.CodeInvalidParams, "the config %s is not valid JSON: %v; fix the file", f, err)
		}
		if s, ok := top[key]; ok && string(s) != "null" {
			return s, f, nil
		}
	}
	return nil, "", nil
}
