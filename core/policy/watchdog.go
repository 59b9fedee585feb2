package policy

import (
	"path"
	"strings"
)

// DefaultWatchdog refuses a few categories of commands that no rule or mode should
// let through, because their damage is the call itself: recursive removal of /, the
// home directory or a top-level system directory; making file systems; raw writes to
// block devices. It sees every simple command of a bash line and every path a write
// or redirection targets.
func DefaultWatchdog(c *Check) (string, bool) {
	switch c.kind {
	case kindPath:
		if c.Capability == CapFSWrite && isBlockDevice(c.Path) {
			return "writing to the block device " + c.Path + " destroys a file system", true
		}
	case kindCommand:
		if len(c.Argv) == 0 {
			return "", false
		}
		name := path.Base(c.Argv[0])
		switch {
		case name == "rm":
			recursive := false
			var targets []string
			for _, a := range c.Argv[1:] {
				switch {
				case a == "-r" || a == "-R" || a == "--recursive" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "rR"):
					recursive = true
				case !strings.HasPrefix(a, "-") || a == "-":
					targets = append(targets, a)
				}
			}
			if recursive {
				for _, t := range targets {
					if catastrophicTarget(t) {
						return "rm -r " + t + " would delete " + describeTarget(t), true
					}
				}
			}
		case strings.HasPrefix(name, "mkfs") || name == "mkswap" || name == "wipefs":
			return name + " destroys a file system", true
		case name == "dd":
			for _, a := range c.Argv[1:] {
				if strings.HasPrefix(a, "of=") && isBlockDevice(a[3:]) {
					return "dd to the block device " + a[3:] + " destroys a file system", true
				}
			}
		}
	}
	return "", false
}

func catastrophicTarget(t string) bool {
	t = strings.TrimRight(t, "/")
	switch t {
	case "", "/*", "~", "~/*", "$HOME", "${HOME}", "$HOME/*", "${HOME}/*":
		return true
	}
	if strings.HasPrefix(t, "/") && strings.Count(t, "/") == 1 {
		switch t[1:] {
		case "bin", "boot", "dev", "etc", "home", "lib", "lib64", "opt", "proc", "root", "sbin", "srv", "sys", "usr", "var":
			return true
		}
	}
	return false
}

func describeTarget(t string) string {
	switch strings.TrimRight(t, "/") {
	case "", "/*":
		return "the whole file system"
	case "~", "~/*", "$HOME", "${HOME}", "$HOME/*", "${HOME}/*":
		return "the home directory"
	}
	return "a system directory"
}

func isBlockDevice(p string) bool {
	for _, prefix := range []string{"/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk", "/dev/disk", "/dev/md", "/dev/dm-", "/dev/mapper/"} {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}
