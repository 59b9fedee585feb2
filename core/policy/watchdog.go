package policy

import "strings"

// DefaultWatchdog is the path half of the built-in watchdog: no mode or rule lets an
// applet write to a block device, whose damage is the call itself. Command lines are
// judged by the shell watchdog (core/shell) in Policy.Evaluate, one engine for the
// bash applet and permit check alike.
func DefaultWatchdog(c *Check) (string, bool) {
	if c.kind == kindPath && c.Capability == CapFSWrite && isBlockDevice(c.Path) {
		return "writing to the block device " + c.Path + " destroys a file system", true
	}
	return "", false
}

func isBlockDevice(p string) bool {
	for _, prefix := range []string{"/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk", "/dev/disk", "/dev/md", "/dev/dm-", "/dev/mapper/"} {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}
