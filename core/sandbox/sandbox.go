// Package sandbox confines a command that agentbox runs: file writes limited to the
// workspace roots and the temp directory (or nowhere), and no network.
//
// Confinement happens in a helper: Wrap rewrites an *exec.Cmd so that it starts the
// agentbox binary itself with a hidden marker argument, the JSON configuration and
// the real command line. That helper (Hook, which main calls before anything else)
// applies Landlock (github.com/landlock-lsm/go-landlock) to itself and then execs
// the real command, which inherits the restriction and cannot lift it. The network
// is cut by starting the helper in fresh user and network namespaces (only a
// loopback device, down), set up by the kernel at clone time through
// SysProcAttr.Cloneflags; where user namespaces are unavailable, Landlock's TCP
// rules (ABI 4+) block connect and bind as a weaker fallback.
//
// Nothing is ever pretended: the Report that Wrap returns says what is enforced and,
// in plain words, what the kernel lacks.
package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Mode selects how much the command may write.
type Mode string

const (
	Off            Mode = "off"             // no confinement
	WorkspaceWrite Mode = "workspace-write" // writes only inside Roots and the temp directory
	ReadOnly       Mode = "read-only"       // writes nowhere (but /dev/null and terminals)
)

// Config describes one confinement.
type Config struct {
	Mode         Mode     `json:"mode"`
	Roots        []string `json:"roots,omitempty"`         // writable trees in workspace-write mode
	TempDir      string   `json:"temp_dir,omitempty"`      // writable in workspace-write mode; "" means os.TempDir()
	AllowNetwork bool     `json:"allow_network,omitempty"` // keep the network (default: cut it when sandboxed)

	// NetNS is set by Wrap for the helper: the network is already cut by namespaces.
	NetNS bool `json:"netns,omitempty"`
}

// Report says what a sandbox enforces.
type Report struct {
	Mode          Mode     `json:"mode"`
	Landlock      int      `json:"landlock_abi"`    // the kernel's Landlock ABI, 0 when absent
	FilesConfined bool     `json:"files_confined"`  // writes are really limited
	Network       string   `json:"network"`         // "allowed", "isolated" (namespaces), "tcp-blocked" (Landlock), "not-isolated"
	Notes         []string `json:"notes,omitempty"` // plain statements of what is missing
}

// Marker is the hidden first argument that makes the binary act as the helper.
const Marker = "__agentbox_sandbox__"

// devFiles stay writable in every mode: discarding output and talking to a
// terminal are not writes to the file system.
var devFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/random", "/dev/urandom"}

// Probe reports what this kernel offers, once per process.
var Probe = sync.OnceValue(func() Capabilities {
	return Capabilities{LandlockABI: landlockABI(), UserNS: probeUserNS()}
})

func landlockABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// Capabilities of the running kernel.
type Capabilities struct {
	LandlockABI int
	UserNS      bool // unprivileged user + network namespaces work
}

// probeUserNS starts /bin/true (or the binary itself) in new user and network
// namespaces to see if the kernel and its policy allow them.
func probeUserNS() bool {
	path := "/bin/true"
	if _, err := os.Stat(path); err != nil {
		path = "/usr/bin/true"
	}
	cmd := exec.Command(path)
	cmd.SysProcAttr = nsAttr()
	return cmd.Run() == nil
}

func nsAttr() *syscall.SysProcAttr {
	uid, gid := os.Getuid(), os.Getgid()
	return &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		// setgroups must be denied before an unprivileged process may map its gid.
		GidMappingsEnableSetgroups: false,
	}
}

// noUserNS lets tests take the Landlock-only network path.
var noUserNS = false

// Plan returns the report for cfg on this kernel without starting anything.
func Plan(cfg Config) Report {
	r := Report{Mode: cfg.Mode, Network: "allowed"}
	if cfg.Mode == "" || cfg.Mode == Off {
		r.Mode = Off
		return r
	}
	caps := Probe()
	if noUserNS {
		caps.UserNS = false
	}
	r.Landlock = caps.LandlockABI
	if caps.LandlockABI > 0 {
		r.FilesConfined = true
	} else {
		r.Notes = append(r.Notes, "this kernel has no Landlock (it needs Linux 5.13+ with landlock in the lsm= list): file writes are NOT confined")
	}
	if !cfg.AllowNetwork {
		switch {
		case caps.UserNS:
			r.Network = "isolated"
		case caps.LandlockABI >= 4:
			r.Network = "tcp-blocked"
			r.Notes = append(r.Notes, "user namespaces are unavailable: only TCP connect/bind is blocked (by Landlock); UDP and other sockets are NOT")
		default:
			r.Network = "not-isolated"
			r.Notes = append(r.Notes, "neither user namespaces nor Landlock network rules are available: the network is NOT cut off")
		}
	}
	return r
}

// Wrap rewrites cmd (Path, Args, SysProcAttr) to run under cfg through the helper
// in the binary self (normally os.Executable()). cmd.Path must be absolute. With
// mode off it changes nothing.
func Wrap(cmd *exec.Cmd, cfg Config, self string) (Report, error) {
	r := Plan(cfg)
	if r.Mode == Off {
		return r, nil
	}
	if !filepath.IsAbs(cmd.Path) {
		return r, fmt.Errorf("sandbox: command path %q is not absolute", cmd.Path)
	}
	if cfg.TempDir == "" {
		cfg.TempDir = os.TempDir()
	}
	cfg.NetNS = r.Network == "isolated"
	js, err := json.Marshal(cfg)
	if err != nil {
		return r, err
	}
	// argv[0] "agentbox": a binary that dispatches on argv[0] (tests) must see agentbox.
	args := append([]string{"agentbox", Marker, string(js), "--", cmd.Path}, cmd.Args[1:]...)
	cmd.Path, cmd.Args = self, args
	if r.Network == "isolated" {
		attr := nsAttr()
		if old := cmd.SysProcAttr; old != nil {
			attr.Setpgid, attr.Pgid, attr.Setsid, attr.Setctty = old.Setpgid, old.Pgid, old.Setsid, old.Setctty
		}
		cmd.SysProcAttr = attr
	}
	return r, nil
}

// Hook runs the helper when the process was started as one (os.Args[1] is Marker)
// and never returns then; otherwise it returns at once. Call it first thing in main
// (and in TestMain of tests that use Wrap).
func Hook() {
	if len(os.Args) < 2 || os.Args[1] != Marker {
		return
	}
	err := helper(os.Args[2:])
	fmt.Fprintf(os.Stderr, "agentbox sandbox: %v\n", err)
	os.Exit(126)
}

// helper applies the confinement to this process and execs the real command.
func helper(args []string) error {
	if len(args) < 3 || args[1] != "--" {
		return errors.New("usage: " + Marker + " CONFIG -- PATH [ARG]")
	}
	var cfg Config
	if err := json.Unmarshal([]byte(args[0]), &cfg); err != nil {
		return fmt.Errorf("bad configuration: %v", err)
	}
	argv := args[3:]
	path := args[2]
	caps := Capabilities{LandlockABI: landlockABI(), UserNS: cfg.NetNS}
	if caps.LandlockABI > 0 {
		if err := restrict(cfg, caps); err != nil {
			return fmt.Errorf("cannot apply Landlock: %v", err)
		}
	}
	return syscall.Exec(path, append([]string{path}, argv...), os.Environ())
}

func restrict(cfg Config, caps Capabilities) error {
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWFiles(devFiles...).IgnoreIfMissing(),
		landlock.RWDirs("/dev/pts").IgnoreIfMissing(),
	}
	if cfg.Mode == WorkspaceWrite {
		dirs := slices.Clone(cfg.Roots)
		if cfg.TempDir != "" {
			dirs = append(dirs, cfg.TempDir)
		}
		for _, d := range dirs {
			// Landlock rules follow the real directory, so resolve symlinks.
			if real, err := filepath.EvalSymlinks(d); err == nil {
				d = real
			}
			rules = append(rules, landlock.RWDirs(d).IgnoreIfMissing())
		}
	}
	lc := landlock.V7.BestEffort()
	if cfg.AllowNetwork || caps.UserNS {
		// Namespaces already cut the network; do not also limit TCP ports.
		return lc.RestrictPaths(rules...)
	}
	return lc.Restrict(rules...)
}
