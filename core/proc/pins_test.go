package proc

import (
	"maps"
	"os"
	"strings"
	"testing"

	"github.com/agentbox/agentbox/core/shell"
	"golang.org/x/sys/unix"
)

// A command whose environment pins a nested agentbox holds the pins, and only the
// pins, on shell.PinsFD, read-only for every process it starts, through a cleared
// environment and a new session; a command with no ceiling holds nothing there.
func TestCommandHoldsItsPins(t *testing.T) {
	env := map[string]string{"AGENTBOX_MODE_CEILING": "default", "AGENTBOX_ROOT": "/w", "OTHER": "x"}
	r := run(t, Options{Env: env, Command: `env -i setsid -w cat /proc/self/fd/249 | tr '\0' '\n'; echo more >/proc/self/fd/249 && echo WROTE`})
	got := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(r.Stdout.Text), "\n") {
		got[l] = true
	}
	if !got["AGENTBOX_MODE_CEILING=default"] || !got["AGENTBOX_ROOT=/w"] || got["OTHER=x"] || got["WROTE"] {
		t.Fatalf("fd 249 holds %q (stderr %q); want the two pins, not OTHER, and no write", r.Stdout.Text, r.Stderr.Text)
	}
	r = run(t, Options{Env: map[string]string{"OTHER": "x"}, Command: `[ -e /proc/self/fd/249 ] && echo OPEN || echo CLOSED`})
	if r.Stdout.Text != "CLOSED\n" {
		t.Fatalf("without a ceiling fd 249 is %q; want it closed", r.Stdout.Text)
	}
}

// InheritedPins reads fd 249 only when it is a sealed agentbox pins memory file, and
// refuses anything else there: the descriptor was replaced.
func TestInheritedPinsWantsASealedPinsFile(t *testing.T) {
	if _, err := unix.FcntlInt(shell.PinsFD, unix.F_GETFD, 0); err == nil {
		t.Skipf("fd %d is open in the test process", shell.PinsFD)
	}
	place := func(f *os.File) {
		t.Helper()
		if err := unix.Dup3(int(f.Fd()), shell.PinsFD, unix.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
	}
	defer unix.Close(shell.PinsFD)

	if pins, err := InheritedPins(); pins != nil || err != nil {
		t.Fatalf("fd 249 closed: %v, %v; want no pins and no error", pins, err)
	}
	sealed, err := sealPins([]string{"AGENTBOX_MODE_CEILING=plan", "AGENTBOX_ROOT=/w", "PATH=/bin"})
	if err != nil {
		t.Fatal(err)
	}
	defer sealed.Close()
	if _, err := sealed.WriteAt([]byte("AGENTBOX_MODE_CEILING=bypass\x00"), 0); err == nil {
		t.Fatal("the sealed pins could be written")
	}
	place(sealed)
	want := map[string]string{"AGENTBOX_MODE_CEILING": "plan", "AGENTBOX_ROOT": "/w", "AGENTBOX_MANIFEST": "", "AGENTBOX_USER_CONFIG": "", "AGENTBOX_USER_CONFIG_SHA256": "", "HOME": "", "XDG_CONFIG_HOME": "", "AGENTBOX_TASK_DEPTH": ""}
	if got, err := InheritedPins(); err != nil || !maps.Equal(got, want) {
		t.Fatalf("got %v, %v; want %v", got, err, want)
	}

	// The same name and contents, but writable: anyone holding it could have changed it.
	fd, err := unix.MemfdCreate(pinsName, unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		t.Fatal(err)
	}
	open := os.NewFile(uintptr(fd), pinsName)
	defer open.Close()
	open.WriteString("AGENTBOX_MODE_CEILING=bypass\x00")
	place(open)
	if got, err := InheritedPins(); got != nil || err == nil || !strings.Contains(err.Error(), "not sealed") {
		t.Fatalf("an unsealed file gave %v, %v; want a refusal", got, err)
	}
	// A sealed file of another name.
	other, _ := os.CreateTemp(t.TempDir(), "pins")
	defer other.Close()
	other.WriteString("AGENTBOX_MODE_CEILING=bypass\x00")
	place(other)
	if got, err := InheritedPins(); got != nil || err == nil || !strings.Contains(err.Error(), "not an agentbox's pins") {
		t.Fatalf("a regular file gave %v, %v; want a refusal", got, err)
	}
	if p, _ := sealPins([]string{"AGENTBOX_ROOT=/w"}); p != nil {
		t.Fatal("pins sealed without a ceiling")
	}
}
