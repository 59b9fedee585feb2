package proc

// A foreground command outlives an agentbox killed with SIGKILL (a harness's own
// timeout, the OOM killer): its bash dies with agentbox (Pdeathsig), but what the line
// had started runs on with no timeout over it. Each run therefore leaves a record in
// Options.RunsDir while it runs (its mark and agentbox's own pid and start time), and
// removes it when it ends; the next run finds the records whose agentbox is gone and
// stops what carries their mark. A process that cleared its environment carries no
// mark and is not found; nor is anything while no later run comes.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// runRecord is what a running command leaves in RunsDir.
type runRecord struct {
	ID         string `json:"id"`          // the RunVar mark
	Owner      int    `json:"owner"`       // the agentbox process running it
	OwnerStart uint64 `json:"owner_start"` // its start time (clock ticks after boot): a pid reused is another process
	Group      int    `json:"group"`       // the command's process group
}

// recordRun writes the record of a command just started; remove takes it away.
func recordRun(dir string, t *tree, pgid int) (remove func()) {
	if dir == "" {
		return func() {}
	}
	self, ok := readStat(strconv.Itoa(os.Getpid()))
	if !ok {
		return func() {}
	}
	b, _ := json.Marshal(runRecord{ID: t.id, Owner: self.pid, OwnerStart: self.start, Group: pgid})
	path := filepath.Join(dir, t.id+".json")
	if os.WriteFile(path, b, 0o600) != nil {
		return func() {}
	}
	return func() { os.Remove(path) }
}

// reapOrphans stops the commands whose agentbox died before they ended: every
// process carrying their mark, their process group included, and removes their
// records. Records of a running agentbox are left alone.
func reapOrphans(dir string) {
	if dir == "" {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		return
	}
	var stale []runRecord
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		var r runRecord
		b, err := os.ReadFile(path)
		if err != nil || json.Unmarshal(b, &r) != nil || r.ID == "" {
			os.Remove(path)
			continue
		}
		if owner, ok := readStat(strconv.Itoa(r.Owner)); ok && owner.start == r.OwnerStart && owner.state != 'Z' {
			continue // its agentbox still runs it
		}
		stale = append(stale, r)
		os.Remove(path)
	}
	if len(stale) == 0 {
		return
	}
	procs := scanProcs()
	for _, r := range stale {
		t := &tree{id: r.ID}
		var ps []procStat
		for _, p := range procs {
			if p.state != 'Z' && p.state != 'X' && hasMark(p.pid, r.ID) {
				ps = append(ps, p)
			}
		}
		signalAll(ps, syscall.SIGKILL)
		t.killed = map[int]bool{}
		for _, p := range ps {
			t.killed[p.pid] = true
		}
		reapAdopted(t.killed)
	}
}
