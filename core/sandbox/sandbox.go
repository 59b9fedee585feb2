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
// Landlock only grants, so it cannot keep a folder inside a writable root read-only.
// The folders that govern what runs later (ProtectedNames: .git, whose config and
// hooks run code, and .agentbox, whose config grants permissions) are kept read-only
// the way Codex keeps .git: the helper starts in a fresh mount namespace too and
// bind-mounts each of them read-only onto itself before Landlock locks the mount
// table. Where user namespaces are unavailable the Report says so.
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
	"strings"
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
	// ReadOnly is set by Wrap for the helper: folders inside the roots to bind-mount
	// read-only (the helper runs in its own mount namespace).
	ReadOnly []string `json:"read_only,omitempty"`
}

// ProtectedNames are the folders of a workspace root that stay read-only in
// workspace-write mode: what they hold decides what runs later (git's config and
// hooks) and what agentbox permits (a project's .agentbox config).
var ProtectedNames = []string{".git", ".agentbox"}

// Report says what a sandbox enforces.
type Report struct {
	Mode          Mode   `json:"mode"`
	Landlock      int    `json:"landlock_abi"`   // the kernel's Landlock ABI, 0 when absent
	FilesConfined bool   `json:"files_confined"` // writes are really limited
	Network       string `json:"network"`        // "allowed", "isolated" (namespaces), "tcp-blocked" (Landlock), "not-isolated"
	// ReadOnly lists the folders inside the roots kept read-only (ProtectedNames that
	// exist); a note says so when the kernel cannot keep them.
	ReadOnly []string `json:"read_only,omitempty"`
	Notes    []string `json:"notes,omitempty"` // plain statements of what is missing
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

// probeUserNS starts /bin/true (or /usr/bin/true) in new user and network
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
	return nsAttrFlags(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET)
}

func nsAttrFlags(flags uintptr) *syscall.SysProcAttr {
	uid, gid := os.Getuid(), os.Getgid()
	return &syscall.SysProcAttr{
		Cloneflags:  flags,
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
	if cfg.Mode == WorkspaceWrite {
		if protect := protectedIn(cfg.Roots); len(protect) > 0 {
			if caps.UserNS {
				r.ReadOnly = protect
			} else {
				r.Notes = append(r.Notes, "user namespaces are unavailable: "+strings.Join(protect, ", ")+" can NOT be kept read-only inside the writable workspace")
			}
		}
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
	cfg.ReadOnly = r.ReadOnly
	js, err := json.Marshal(cfg)
	if err != nil {
		return r, err
	}
	// argv[0] "agentbox": a binary that dispatches on argv[0] (tests) must see agentbox.
	args := append([]string{"agentbox", Marker, string(js), "--", cmd.Path}, cmd.Args[1:]...)
	cmd.Path, cmd.Args = self, args
	if r.Network == "isolated" || len(r.ReadOnly) > 0 {
		flags := uintptr(syscall.CLONE_NEWUSER)
		if r.Network == "isolated" {
			flags |= syscall.CLONE_NEWNET
		}
		if len(r.ReadOnly) > 0 {
			flags |= syscall.CLONE_NEWNS
		}
		attr := nsAttrFlags(flags)
		if old := cmd.SysProcAttr; old != nil {
			attr.Setpgid, attr.Pgid, attr.Setsid, attr.Setctty, attr.Pdeathsig = old.Setpgid, old.Pgid, old.Setsid, old.Setctty, old.Pdeathsig
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
	// Mounts first: once Landlock is on, the mount table cannot change.
	if err := mountReadOnly(cfg.ReadOnly); err != nil {
		return err
	}
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

// protectedIn lists the ProtectedNames that exist in the roots, by real path (the
// mount and Landlock rules both follow symlinks).
func protectedIn(roots []string) []string {
	var out []string
	for _, root := range roots {
		for _, name := range ProtectedNames {
			p := filepath.Join(root, name)
			if real, err := filepath.EvalSymlinks(p); err == nil && !slices.Contains(out, real) {
				out = append(out, real)
			}
		}
	}
	return out
}

// mountReadOnly bind-mounts each path read-only onto itself, in the helper's own
// mount namespace (private, so nothing reaches the host's). A remount inside a user
// namespace must keep the flags the kernel locked on the original mount (nosuid,
// nodev, noexec, atime), so they are read back with statfs and kept.
func mountReadOnly(paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("cannot make the mount namespace private: %v", err)
	}
	for _, p := range paths {
		if err := syscall.Mount(p, p, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return fmt.Errorf("cannot keep %s read-only (bind mount: %v)", p, err)
		}
		var st syscall.Statfs_t
		if err := syscall.Statfs(p, &st); err != nil {
			return fmt.Errorf("cannot keep %s read-only (statfs: %v)", p, err)
		}
		flags := uintptr(syscall.MS_REMOUNT | syscall.MS_BIND | syscall.MS_RDONLY)
		for _, f := range []struct{ st, ms uintptr }{
			{stNosuid, syscall.MS_NOSUID}, {stNodev, syscall.MS_NODEV}, {stNoexec, syscall.MS_NOEXEC},
			{stNoatime, syscall.MS_NOATIME}, {stNodiratime, syscall.MS_NODIRATIME}, {stRelatime, syscall.MS_RELATIME},
		} {
			if uintptr(st.Flags)&f.st != 0 {
				flags |= f.ms
			}
		}
		if err := syscall.Mount("", p, "", flags, ""); err != nil {
			return fmt.Errorf("cannot keep %s read-only (remount: %v)", p, err)
		}
	}
	return nil
}

// The statfs f_flags bits (ST_* in statvfs.h), which the syscall package lacks.
const (
	stNosuid     = 0x2
	stNodev      = 0x4
	stNoexec     = 0x8
	stNoatime    = 0x400
	stNodiratime = 0x800
	stRelatime   = 0x1000
)
