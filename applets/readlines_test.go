package applets

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/coretest"
)

// mapSmallFiles lets the tests map files of a few KB, with marks every 64 bytes, and
// reads as if a minute later so that a file written by the test is not racy.
func mapSmallFiles(t *testing.T) {
	t.Helper()
	oldMin, oldGap, oldHash, oldClock := lineMapMinBytes, lineMapMinGap, readHashMaxBytes, readClock
	t.Cleanup(func() {
		lineMapMinBytes, lineMapMinGap, readHashMaxBytes, readClock = oldMin, oldGap, oldHash, oldClock
	})
	lineMapMinBytes, lineMapMinGap, readHashMaxBytes = 256, 64, 8
	readClock = func() time.Time { return time.Now().Add(time.Minute) }
}

func readData(t *testing.T, env *core.Env, req string) ReadResult {
	t.Helper()
	res, err := coretest.Call(t, env, &Read{}, req)
	if err != nil {
		t.Fatalf("%s: %v", req, err)
	}
	var out ReadResult
	b, _ := json.Marshal(res.Data)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// A read with the line map answers exactly as a read that counts the whole file: for
// every window, near marks and between them, with and without a last newline, with
// CRLF lines only before the window.
func TestLineMapReadsMatchAFullCount(t *testing.T) {
	for _, tc := range []struct{ name, tail string }{{"newline at end", "last\n"}, {"no newline at end", "last"}} {
		t.Run(tc.name, func(t *testing.T) {
			mapSmallFiles(t)
			env := coretest.Env(t, "read")
			var b strings.Builder
			b.WriteString("crlf first\r\n")
			for i := 2; i < 400; i++ {
				fmt.Fprintf(&b, "line %d %s\n", i, strings.Repeat("x", i%17))
			}
			b.WriteString(tc.tail)
			p := writeFile(t, env, "big.txt", b.String())
			windows := []string{`{"file_path":"big.txt"}`, `{"file_path":"big.txt","offset":399,"limit":5}`, `{"file_path":"big.txt","offset":1000}`}
			r := rand.New(rand.NewPCG(1, 2))
			for range 40 {
				windows = append(windows, fmt.Sprintf(`{"file_path":"big.txt","offset":%d,"limit":%d}`, r.IntN(410), 1+r.IntN(20)))
			}
			name := lineMapName(p)
			for _, req := range windows {
				_ = os.Remove(sessionFile(t, env, name))
				whole := readData(t, env, req) // counts the file and leaves a map
				if _, err := os.Stat(sessionFile(t, env, name)); err != nil {
					t.Fatalf("%s: no line map after a whole read: %v", req, err)
				}
				mapped := readData(t, env, req)
				if fmt.Sprintf("%+v", whole) != fmt.Sprintf("%+v", mapped) {
					t.Fatalf("%s:\nwhole  %+v\nmapped %+v", req, whole, mapped)
				}
				if whole.LineEnding != "mixed" {
					t.Fatalf("%s: line ending %q, want mixed (CRLF in the first line, LF after)", req, whole.LineEnding)
				}
			}
		})
	}
}

// A map is not trusted once the file changed, even when size and mtime are as before:
// ctime tells, and the read counts again.
func TestLineMapNotTrustedAfterAChange(t *testing.T) {
	mapSmallFiles(t)
	env := coretest.Env(t, "read")
	body := strings.Repeat("aaaaaaaaa\n", 100)
	p := writeFile(t, env, "big.txt", body)
	readData(t, env, `{"file_path":"big.txt","offset":90}`)
	fi, _ := os.Stat(p)
	if err := os.WriteFile(p, []byte(strings.Replace(body, "aaaaaaaaa\n", "a\na\na\na\na\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	got := readData(t, env, `{"file_path":"big.txt","offset":90}`)
	if got.TotalLines != 104 || !strings.Contains(got.Content, "    91\taaaaaaaaa") {
		t.Fatalf("the map of the old file was used: %+v", got)
	}
}

// sessionFile is the path of a file in the session's state.
func sessionFile(t *testing.T, env *core.Env, name string) string {
	t.Helper()
	p, err := env.Session.Path(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
