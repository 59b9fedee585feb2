package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentbox/agentbox/applets"
	"github.com/agentbox/agentbox/core"
)

// Bounded envelopes (issue 17.4): every applet is fed hostile sizes in every string
// field (20 MB in the first string field of each applet with AGENTBOX_LONG_TESTS, 2 MB
// otherwise, 1 MB in the others), huge and negative
// numbers in every number field, and a file of ten million lines. Each call must answer
// with one envelope, an error envelope under 64 KB, an output envelope under 1 MB (the
// rest goes to output_path), and never a negative line number.
func TestHostileSizes(t *testing.T) {
	// Full sizes without the race detector; under it (CI) a tenth, which still
	// exceeds every cap by far.
	size, nLines := 2<<20, 10_000_000
	if os.Getenv("AGENTBOX_LONG_TESTS") != "" && !raceEnabled {
		size = 20 << 20
	}
	if raceEnabled {
		nLines = 1_000_000
	}
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	lines := strings.Repeat("a line\n", nLines)
	if err := os.WriteFile(filepath.Join(dir, "huge.txt"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"HOME": dir, "XDG_STATE_HOME": filepath.Join(dir, ".state"), "AGENTBOX_ROOT": dir,
		"AGENTBOX_HEADLESS": "1", "AGENTBOX_MODE": "bypass", "PATH": "/usr/bin:/bin"}
	big := strings.Repeat("x", size)
	medium := big[:1<<20]
	check := func(where string, res callResult) {
		t.Helper()
		n := len(res.stdout)
		switch res.envelope.Type {
		case "error":
			if n >= core.MaxErrorEnvelope {
				t.Errorf("%s: error envelope of %d bytes: %.200s", where, n, res.stdout)
			}
		default:
			if n >= 1<<20 {
				t.Errorf("%s: output envelope of %d bytes: %.200s", where, n, res.stdout)
			}
		}
		if strings.Contains(res.stdout, `"start_line":-`) || strings.Contains(res.stdout, `"line":-`) || strings.Contains(res.stdout, `line -`) {
			t.Errorf("%s: a negative line number: %.300s", where, res.stdout)
		}
	}
	for _, spec := range applets.All {
		if spec.Name == "mcp" || spec.Name == "ask" {
			continue // a server and a question to a person: covered by their own tests
		}
		first := true
		for _, f := range core.ParamsOf(spec.New()).Fields {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			var reqs []string
			switch ft.Kind() {
			case reflect.String:
				s := medium
				if first {
					s, first = big, false
				}
				reqs = []string{fmt.Sprintf(`{%q:%q}`, f.Name, s)}
			case reflect.Int, reflect.Int64, reflect.Int32:
				reqs = []string{fmt.Sprintf(`{%q:1e308}`, f.Name), fmt.Sprintf(`{%q:-9007199254740993}`, f.Name), fmt.Sprintf(`{%q:-1}`, f.Name)}
			case reflect.Slice:
				if ft.Elem().Kind() == reflect.String {
					reqs = []string{fmt.Sprintf(`{%q:[%q]}`, f.Name, medium)}
				}
			}
			for _, req := range reqs {
				res := callInProcess(t, vars, dir, spec.Name, []byte(req))
				check(fmt.Sprintf("%s %s (%d bytes)", spec.Name, f.Name, len(req)), res)
			}
		}
	}
	// Ten million lines: read, grep and edit answer within their caps.
	for applet, req := range map[string]string{
		"read": `{"file_path":"huge.txt"}`, "grep": `{"pattern":"line","path":"huge.txt","output_mode":"content"}`,
		"edit": `{"file_path":"huge.txt","old_string":"a line","new_string":"b"}`, "bash": `{"command":"/bin/cat huge.txt"}`,
	} {
		check(applet+" on ten million lines", callInProcess(t, vars, dir, applet, []byte(req)))
	}
}
