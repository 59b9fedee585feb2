package proc

import (
	"bytes"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Killing a command's whole tree. A process group covers what a command starts in
// the ordinary way, but `setsid cmd &` (or setpgid, or a daemon's double fork) leaves
// the group and would survive the timeout. Two more nets catch those:
//
//   - the runner marks the command's environment with RunVar=<random id>, and every
//     process whose initial environment carries the mark is the command's, wherever it
//     was reparented;
//   - the agentbox process is a child subreaper (PR_SET_CHILD_SUBREAPER), so orphans
//     of the command are reparented to it rather than to init: a process that left
//     the session and cleared its environment is still found as a child of agentbox
//     that agentbox did not start, in another session, started after the command.
//
// Members are found by a /proc scan when a command is killed (never on the happy
// path), and adopted orphans that were killed are reaped so none is left a zombie.

// RunVar is the environment variable that marks the processes of one command.
const RunVar = "AGENTBOX_RUN"

var subreaperOnce sync.Once

// becomeSubreaper makes this process the reaper of its descendants' orphans.
func becomeSubreaper() {
	subreaperOnce.Do(func() { unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
}

// own holds the pids this package started (bash of a running command, job
// supervisors): they are children of this process but never adopted orphans.
var own sync.Map // pid -> struct{}

// newTree describes a command about to start: a fresh mark, and the time from which
// an orphan that turns up as this process's child can be the command's. Both are taken
// without touching the file system (a /proc read per call was measurable overhead).
func newTree() *tree {
	return &tree{id: strconv.FormatUint(rand.Uint64(), 16), since: bootTicks()}
}

// userHZ is the unit of /proc/<pid>/stat's starttime: USER_HZ, 100 on every
// architecture Go supports on Linux.
const userHZ = 100

// bootTicks is the time since boot in starttime's unit, rounded down as the kernel
// rounds starttime, so every process started after the call has a starttime at least
// as large. 0 (every orphan qualifies) if the clock cannot be read.
func bootTicks() uint64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts) != nil {
		return 0
	}
	return uint64(ts.Nano()) / (1e9 / userHZ)
}

type procStat struct {
	pid, ppid, pgid, sid int
	state                byte
	start                uint64 // clock ticks after boot
}

// readStat parses /proc/<pid>/stat; comm may hold spaces and parentheses.
func readStat(pid string) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return procStat{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return procStat{}, false
	}
	var s procStat
	s.pid, _ = strconv.Atoi(pid)
	s.state = f[0][0]
	s.ppid, _ = strconv.Atoi(f[1])
	s.pgid, _ = strconv.Atoi(f[2])
	s.sid, _ = strconv.Atoi(f[3])
	s.start, _ = strconv.ParseUint(f[19], 10, 64)
	return s, true
}

func scanProcs() []procStat {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make([]procStat, 0, len(ents))
	for _, e := range ents {
		if c := e.Name()[0]; c < '0' || c > '9' {
			continue
		}
		if s, ok := readStat(e.Name()); ok {
			out = append(out, s)
		}
	}
	return out
}

// hasMark reports whether pid's initial environment holds RunVar=id.
func hasMark(pid int, id string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	mark := []byte(RunVar + "=" + id + "\x00")
	return bytes.HasPrefix(b, mark) || bytes.Contains(b, append([]byte{0}, mark...))
}

// tree describes one command for finding its processes.
type tree struct {
	root  int    // bash
	id    string // the RunVar mark
	since uint64 // a lower bound of bash's start time (clock ticks after boot)
	// killed holds every member signalled, so the adopted ones can be reaped.
	killed map[int]bool
}

func (t *tree) begin(pid int) {
	own.Store(pid, struct{}{})
	t.root = pid
}

func (t *tree) end() { own.Delete(t.root) }

// members returns the live processes of the command other than bash itself: bash's
// descendants, marked processes, adopted orphans and all their descendants.
func (t *tree) members() []procStat {
	procs := scanProcs()
	self, _ := readStat(strconv.Itoa(os.Getpid()))
	children := map[int][]int{}
	byPid := map[int]procStat{}
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p.pid)
		byPid[p.pid] = p
	}
	in := map[int]bool{}
	var queue []int
	add := func(pid int) {
		if !in[pid] {
			in[pid] = true
			queue = append(queue, pid)
		}
	}
	add(t.root)
	for _, p := range procs {
		if p.pid == self.pid || p.state == 'Z' || p.state == 'X' {
			continue
		}
		_, mine := own.Load(p.pid)
		adopted := p.ppid == self.pid && !mine && p.sid != self.sid && p.start >= t.since
		if adopted || t.id != "" && hasMark(p.pid, t.id) {
			add(p.pid)
		}
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			add(c)
		}
	}
	var out []procStat
	for pid := range in {
		if p, ok := byPid[pid]; ok && pid != t.root && p.state != 'Z' && p.state != 'X' {
			out = append(out, p)
		}
	}
	return out
}

// signal sends sig to each member and to the groups they lead.
func signalAll(ps []procStat, sig syscall.Signal) {
	for _, p := range ps {
		if p.pgid == p.pid {
			syscall.Kill(-p.pid, sig)
		}
		syscall.Kill(p.pid, sig)
	}
}

// killRest stops the members that escaped the process group: SIGTERM, then SIGKILL
// once grace has passed (counted from the group's SIGTERM), and reaps the ones this
// process adopted.
func (t *tree) killRest(termSent time.Time, grace time.Duration) {
	ps := t.members()
	if t.killed == nil {
		t.killed = map[int]bool{}
	}
	killed := t.killed
	defer reapAdopted(killed)
	if len(ps) == 0 {
		return
	}
	note := func(ps []procStat) {
		for _, p := range ps {
			killed[p.pid] = true
		}
	}
	note(ps)
	signalAll(ps, syscall.SIGTERM)
	signalAll(ps, syscall.SIGCONT)
	deadline := termSent.Add(grace)
	for time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		reapAdopted(killed)
		if ps = t.members(); len(ps) == 0 {
			break
		}
		note(ps)
	}
	for i := 0; i < 50 && len(ps) > 0; i++ {
		signalAll(ps, syscall.SIGKILL)
		time.Sleep(10 * time.Millisecond)
		reapAdopted(killed)
		ps = t.members()
		note(ps)
	}
}

// lingering holds the members of commands that exited leaving processes behind: as
// subreaper this process inherits them, and reaps them once they are zombies
// (reapLingering, at every Run) so a long-lived agentbox does not collect zombies.
var lingering sync.Map // pid -> struct{}

// noteLingering records the command's processes still alive after it exited, and
// returns their pids, ascending.
func (t *tree) noteLingering() []int {
	var pids []int
	for _, p := range t.members() {
		lingering.Store(p.pid, struct{}{})
		pids = append(pids, p.pid)
	}
	slices.Sort(pids)
	return pids
}

func reapLingering() {
	self := os.Getpid()
	lingering.Range(func(k, _ any) bool {
		pid := k.(int)
		st, ok := readStat(strconv.Itoa(pid))
		switch {
		case !ok:
			lingering.Delete(pid) // gone (reaped elsewhere, or by init)
		case st.state == 'Z' && st.ppid == self:
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			lingering.Delete(pid)
		}
		return true
	})
}

// reapAdopted waits for the killed processes that became zombie children of this
// process (orphans it adopted as subreaper), so none is left behind. Only pids it
// killed are reaped: another goroutine's exec.Cmd must keep its own exit status.
func reapAdopted(killed map[int]bool) {
	self := os.Getpid()
	for _, p := range scanProcs() {
		if p.ppid != self || p.state != 'Z' || !killed[p.pid] {
			continue
		}
		if _, mine := own.Load(p.pid); mine {
			continue
		}
		var ws syscall.WaitStatus
		syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
	}
}
