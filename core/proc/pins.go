package proc

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/agentbox/agentbox/core/shell"
	"golang.org/x/sys/unix"
)

// PinKeys are the environment variables that pin an agentbox a command runs to the
// policy of the agentbox that runs the command (see applets' nestedEnv): the mode
// ceiling, the workspace roots, the manifest and the user config, with the HOME and
// XDG_CONFIG_HOME that locate the user config, the digest of its contents, and a
// subagent's depth (task's max_depth).
var PinKeys = []string{"AGENTBOX_MODE_CEILING", "AGENTBOX_ROOT", "AGENTBOX_MANIFEST", "AGENTBOX_USER_CONFIG", "AGENTBOX_USER_CONFIG_SHA256", "HOME", "XDG_CONFIG_HOME", "AGENTBOX_TASK_DEPTH"}

// pinsName names the memory file, as /proc/PID/fd shows it ("/memfd:agentbox-pins").
const pinsName = "agentbox-pins"

// sealPins returns a sealed memory file holding the pins of env (KEY=VALUE entries), or
// nil when env pins nothing (no AGENTBOX_MODE_CEILING). bash gets it as a descriptor
// that every process it starts inherits (the prelude moves it to shell.PinsFD), through
// env -i, setsid and exec, which lose the environment or the process group the other
// ways of finding the pins rely on; the line may not close it (the gate refuses that).
// The seals make it read-only for every holder.
func sealPins(env []string) (*os.File, error) {
	var b strings.Builder
	pinned := false
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		for _, p := range PinKeys {
			if k == p {
				b.WriteString(kv)
				b.WriteByte(0)
				pinned = pinned || k == "AGENTBOX_MODE_CEILING"
			}
		}
	}
	if !pinned {
		return nil, nil
	}
	fd, err := unix.MemfdCreate(pinsName, unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), pinsName)
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_WRITE|unix.F_SEAL_GROW|unix.F_SEAL_SHRINK|unix.F_SEAL_SEAL); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// InheritedPins returns the pins an agentbox's bash left at shell.PinsFD for the
// processes its command starts: nil when that descriptor is closed, an error when it is
// open but holds no sealed agentbox pins (replaced, or unreadable: no /proc), which
// the caller must refuse to run under rather than run without a caller's policy.
// Called at process start, before this process opens descriptors of its own.
func InheritedPins() (map[string]string, error) {
	const fd = shell.PinsFD
	if _, err := unix.FcntlInt(fd, unix.F_GETFD, 0); err == unix.EBADF {
		return nil, nil
	}
	bad := func(why string) error {
		return fmt.Errorf("file descriptor %d is open but %s; agentbox keeps it for the policy of the agentbox that runs this one (its bash holds it for every process a command starts), so it will not run without that policy: run it from the calling agentbox's command with descriptor %d left as it was", fd, why, fd)
	}
	link, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		return nil, bad("what it holds cannot be read (" + err.Error() + ")")
	}
	if !strings.HasPrefix(link, "/memfd:"+pinsName+" ") {
		return nil, bad("holds " + link + ", not an agentbox's pins")
	}
	seals, err := unix.FcntlInt(fd, unix.F_GET_SEALS, 0)
	if err != nil || seals&unix.F_SEAL_WRITE == 0 {
		return nil, bad("its pins are not sealed against writing")
	}
	buf := make([]byte, 64<<10)
	n, err := unix.Pread(fd, buf, 0) // pread: the offset is shared with every holder
	if err != nil || n == len(buf) {
		return nil, bad("its pins cannot be read")
	}
	pins := map[string]string{}
	for _, kv := range strings.Split(string(buf[:n]), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			pins[k] = v
		}
	}
	if pins["AGENTBOX_MODE_CEILING"] == "" {
		return nil, bad("its pins name no mode ceiling")
	}
	for _, k := range PinKeys {
		if _, ok := pins[k]; !ok {
			pins[k] = "" // the pinned shell had none: neither does this process
		}
	}
	return pins, nil
}
