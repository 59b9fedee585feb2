package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentbox/agentbox/applets"
	"github.com/agentbox/agentbox/cli"
	"github.com/agentbox/agentbox/core"
)

// hostileRequests are sent to every applet in JSON mode. None may crash agentbox, print
// a Go stack, leave stdout without one envelope, or exit with a status other than 0, 1, 2.
func hostileRequests() []string {
	reqs := []string{
		``, `{`, `}`, `[]`, `null`, `"x"`, `42`, `{"a":}`, `{"a":1,}`, `{} {}`, `{}garbage`,
		"\xff\xfe{}", `{"` + "\xff" + `":1}`, `{"x":"\u0000"}`, strings.Repeat("[", 100000),
		`{"a":` + strings.Repeat(`{"b":`, 5000) + `1` + strings.Repeat("}", 5001),
		`{"n":1e999999}`, `{"n":-0}`, `{"__proto__":{}}`, `{"constructor":1}`,
	}
	return reqs
}

// wrongTypes builds, for every field of an applet, a request with a value of the wrong
// JSON type. (null is not among them: it means "unset", as strict-mode schemas send
// it for every optional field.)
func wrongTypes(cmd core.Command) []string {
	var reqs []string
	for _, f := range core.ParamsOf(cmd).Fields {
		t := f.Type
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		var bad []string
		switch t.Kind() {
		case reflect.String:
			bad = []string{`1`, `true`, `["a"]`, `{}`}
		case reflect.Bool:
			bad = []string{`"true"`, `1`}
		case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64:
			bad = []string{`"1"`, `1.5`, `1e30`, `-1e30`, `true`}
		case reflect.Float64, reflect.Float32:
			bad = []string{`"0.5"`, `[]`}
		case reflect.Slice:
			bad = []string{`"a"`, `{}`, `[null]`, `[1,2,3]`}
		case reflect.Map:
			bad = []string{`[]`, `"a"`, `{"k":{}}`}
		default:
			bad = []string{`"x"`}
		}
		for _, b := range bad {
			reqs = append(reqs, fmt.Sprintf(`{%q:%s}`, f.Name, b))
		}
	}
	return reqs
}

func TestHostileJSON(t *testing.T) {
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	vars := map[string]string{"HOME": dir, "XDG_STATE_HOME": filepath.Join(dir, ".state"), "AGENTBOX_ROOT": dir, "AGENTBOX_HEADLESS": "1", "AGENTBOX_MODE": "read-only"}
	for _, spec := range applets.All {
		wrong := wrongTypes(spec.New())
		reqs := append(hostileRequests(), wrong...)
		for i, req := range reqs {
			isWrongType := i >= len(reqs)-len(wrong)
			var out, errb bytes.Buffer
			host := cli.Host{
				Stdin: strings.NewReader(req), Stdout: &out, Stderr: &errb,
				Getenv: func(k string) string { return vars[k] }, Getwd: func() (string, error) { return dir, nil },
				Now: time.Now, Executable: "/nonexistent/agentbox",
			}
			code := cli.Main([]string{"agentbox", spec.Name}, applets.All, host)
			label := fmt.Sprintf("%s <- %.60q", spec.Name, req)
			if code != 0 && code != 1 && code != 2 {
				t.Errorf("%s: exit status %d", label, code)
			}
			if strings.Contains(out.String()+errb.String(), "goroutine ") {
				t.Errorf("%s: printed a Go stack:\n%s", label, out.String()+errb.String())
			}
			if spec.Stdio {
				// A server speaks its own protocol: every line it printed must be JSON.
				for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
					if line != "" && !json.Valid([]byte(line)) {
						t.Errorf("%s: printed a line that is not JSON: %q", label, line)
					}
				}
				continue
			}
			var env core.Envelope
			dec := json.NewDecoder(&out)
			if err := dec.Decode(&env); err != nil || (env.Type != "output" && env.Type != "error") || dec.More() {
				t.Errorf("%s: stdout is not exactly one envelope (%v): %q", label, err, out.String())
				continue
			}
			if env.Type == "error" && (env.ErrorText == "" || env.Metadata["error_code"] == nil) {
				t.Errorf("%s: error envelope without text or code: %+v", label, env)
			}
			if isWrongType && env.Metadata["error_code"] != string(core.CodeInvalidParams) {
				t.Errorf("%s: a field of the wrong type got %v, want invalid_params: %s", label, env.Metadata["error_code"], env.ErrorText)
			}
			if env.Type == "error" && env.Metadata["error_code"] == string(core.CodeInternal) {
				t.Errorf("%s: internal error: %s", label, env.ErrorText)
			}
		}
	}
}
