package core

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/agentbox/agentbox/core/filelock"
	"github.com/agentbox/agentbox/core/statefile"
	"github.com/google/renameio/v2"
)

// DefaultSession is the session id used when neither --session nor AGENTBOX_SESSION is set.
const DefaultSession = "default"

// validSessionID accepts 1-128 letters, digits, '.', '_' or '-', starting with a
// letter or digit, so an id can never name a path outside the sessions directory.
func validSessionID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i, c := range []byte(id) {
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// Session is the per-session state directory,
// $XDG_STATE_HOME/agentbox/sessions/<id>/ (0700): grants, read records, todo lists,
// background jobs, the persistent working directory and spill files. Its state files
// (SaveJSON) are replaced atomically and their read-modify-write cycles hold a file
// lock, so concurrent agentbox processes of one session never lose an update; spill
// files and job output are written in place.
type Session struct {
	ID  string
	dir string
	now func() time.Time
	// SidecarMaxAge is how long sidecar files (output_path) are kept: a later spill
	// removes older ones, at most once an hour. Zero means DefaultSidecarMaxAge.
	SidecarMaxAge time.Duration
}

// DefaultSidecarMaxAge is how long sidecar and finished job files are kept
// (AGENTBOX_SIDECAR_MAX_AGE overrides it).
const DefaultSidecarMaxAge = 24 * time.Hour

// ParseMaxAge reads AGENTBOX_SIDECAR_MAX_AGE: a Go duration ("6h", "30m") or a number of
// hours; "" or a bad value is the default.
func ParseMaxAge(v string) time.Duration {
	if v == "" {
		return DefaultSidecarMaxAge
	}
	if d, err := time.ParseDuration(v); err == nil && d > 0 {
		return d
	}
	if h, err := strconv.ParseFloat(v, 64); err == nil && h > 0 && h < 1e6 {
		return time.Duration(h * float64(time.Hour))
	}
	return DefaultSidecarMaxAge
}

// sweepSpill removes the session's sidecar files older than SidecarMaxAge. It runs at
// most once an hour (the mtime of spill/.swept says when it last ran), so a spill
// costs one stat in the common case.
func (s *Session) sweepSpill(dir string) {
	maxAge := s.SidecarMaxAge
	if maxAge <= 0 {
		maxAge = DefaultSidecarMaxAge
	}
	now := s.now()
	stamp := filepath.Join(dir, ".swept")
	if fi, err := os.Stat(stamp); err == nil && now.Sub(fi.ModTime()) < time.Hour && now.Sub(fi.ModTime()) < maxAge {
		return
	}
	if f, err := os.OpenFile(stamp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600); err == nil {
		f.Close()
		_ = os.Chtimes(stamp, now, now)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Name() == ".swept" || e.IsDir() {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > maxAge {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// NewSession returns the session id under stateHome (the directory that holds
// agentbox/sessions). The directory is created on first use.
func NewSession(stateHome, id string, now func() time.Time) (*Session, error) {
	if id == "" {
		id = DefaultSession
	}
	if !validSessionID(id) {
		return nil, Errorf(CodeInvalidParams, "session id %q is not valid: use 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit", id)
	}
	if now == nil {
		now = time.Now
	}
	return &Session{ID: id, dir: filepath.Join(stateHome, "agentbox", "sessions", id), now: now}, nil
}

// SiblingExists reports whether another session with the given id has state on disk
// (a subagent's session id must not reuse an old one's todos, grants and reads).
func (s *Session) SiblingExists(id string) bool {
	if !validSessionID(id) {
		return false
	}
	_, err := os.Lstat(filepath.Join(filepath.Dir(s.dir), id))
	return err == nil
}

// Dir returns the session directory, creating it (0700) if needed.
func (s *Session) Dir() (string, error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return "", Errorf(CodeIOError, "cannot create the session directory %s: %v; set XDG_STATE_HOME to a writable directory", s.dir, err)
	}
	return s.dir, nil
}

// SharedDir returns a directory shared by every session of this user (under the
// state home, next to sessions/), creating it (0700).
func (s *Session) SharedDir(name string) (string, error) {
	d := filepath.Join(filepath.Dir(filepath.Dir(s.dir)), name)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", Errorf(CodeIOError, "cannot create %s: %v; set XDG_STATE_HOME to a writable directory", d, err)
	}
	return d, nil
}

// ReadableDirs are the session's folders an agent may read back: the sidecar files of
// output_path (spill), the output of background jobs (jobs) and of subagents (tasks). Another session's
// folders are not among them. The paths are symlink-resolved like workspace roots.
func (s *Session) ReadableDirs() []string {
	dir := s.dir
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return []string{filepath.Join(dir, "spill"), filepath.Join(dir, "jobs"), filepath.Join(dir, "tasks")}
}

// Path returns a path inside the session directory (creating the directory).
func (s *Session) Path(parts ...string) (string, error) {
	d, err := s.Dir()
	if err != nil {
		return "", err
	}
	p := filepath.Join(append([]string{d}, parts...)...)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", Errorf(CodeIOError, "cannot create %s: %v", filepath.Dir(p), err)
	}
	return p, nil
}

// Spill writes the whole of an output that was cut to a 0600 sidecar file and returns
// its path, for the envelope's output_path.
func (s *Session) Spill(applet string, data []byte) (string, error) {
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	name := fmt.Sprintf("%s-%s-%s.txt", applet, s.now().UTC().Format("20060102T150405.000000000"), hex.EncodeToString(rnd[:]))
	p, err := s.Path("spill", name)
	if err != nil {
		return "", err
	}
	s.sweepSpill(filepath.Dir(p))
	if err := os.WriteFile(p, data, 0o600); err != nil {
		return "", Errorf(CodeIOError, "cannot write the spill file %s: %v", p, err)
	}
	return p, nil
}

// SpillLines writes n lines, line(i) each followed by a newline, to a sidecar file,
// streamed (see SpillStream): the whole list behind a cut result of glob or grep.
func (s *Session) SpillLines(applet string, n int, line func(i int) string) (string, error) {
	return s.SpillStream(applet, func(w *bufio.Writer) error {
		for i := 0; i < n; i++ {
			w.WriteString(line(i))
			if err := w.WriteByte('\n'); err != nil {
				return err // a write error is sticky: the rest would fail too
			}
		}
		return nil
	})
}

// SpillFile creates an empty 0600 sidecar file for streaming output into.
func (s *Session) SpillFile(applet string) (*os.File, error) {
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	name := fmt.Sprintf("%s-%s-%s.txt", applet, s.now().UTC().Format("20060102T150405.000000000"), hex.EncodeToString(rnd[:]))
	p, err := s.Path("spill", name)
	if err != nil {
		return nil, err
	}
	s.sweepSpill(filepath.Dir(p))
	return os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
}

// SpillStream writes a sidecar file through write, buffered, without holding the
// whole output in memory (a million paths), and returns its path for output_path. On
// an error the partial file is removed.
func (s *Session) SpillStream(applet string, write func(w *bufio.Writer) error) (string, error) {
	f, err := s.SpillFile(applet)
	if err != nil {
		return "", Errorf(CodeIOError, "cannot create the spill file: %v", err)
	}
	w := bufio.NewWriterSize(f, 256<<10)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return "", Errorf(CodeIOError, "cannot write the spill file %s: %v", f.Name(), err)
	}
	return f.Name(), nil
}

// WithLock runs fn while holding the session's exclusive file lock called name.
func (s *Session) WithLock(ctx context.Context, name string, fn func() error) error {
	p, err := s.Path("locks", name+".lock")
	if err != nil {
		return err
	}
	return lockErr(filelock.Do(ctx, p, fn), "the session lock "+name)
}

// WithPathLock runs fn while holding an exclusive lock on a file of the workspace (by
// its absolute path), so read-modify-write cycles on it by several agentbox processes
// never lose an update. The lock file lives in the folder every session of this user
// shares, never beside the file. The lock is advisory: every agentbox writer of the
// file takes it.
func (s *Session) WithPathLock(ctx context.Context, abs string, fn func() error) error {
	dir, err := s.SharedDir("locks")
	if err != nil {
		return err
	}
	return lockErr(filelock.Do(ctx, filepath.Join(dir, filelock.NameFor(abs)), fn), "the lock on "+abs)
}

// lockErr reports a lock that could not be taken as a timeout; fn's own error passes.
func lockErr(err error, what string) error {
	if !errors.Is(err, filelock.ErrNotTaken) {
		return err
	}
	return Errorf(CodeTimeout, "could not take %s: %v; another agentbox call holds it, try again", what, err)
}

// LoadJSON reads a small state file of the session into v. A missing file leaves v
// untouched and returns nil.
func (s *Session) LoadJSON(name string, v any) error {
	p, err := s.Path(name)
	if err != nil {
		return err
	}
	b, err := statefile.Read(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return Errorf(CodeIOError, "cannot read session state %s: %v", p, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return Errorf(CodeIOError, "session state %s is corrupt (%v); delete it to start over", p, err)
	}
	return nil
}

// SaveJSON writes a small state file of the session atomically (0600) and durably.
func (s *Session) SaveJSON(name string, v any) error {
	return s.saveJSON(name, v, true)
}

// SaveRecord writes a state file that costs nothing to lose, atomically but without
// waiting for the disk: a read's stamp or a line map, written on every read. After a
// crash such a file may be empty; its readers then count it as missing or stale.
func (s *Session) SaveRecord(name string, v any) error {
	return s.saveJSON(name, v, false)
}

func (s *Session) saveJSON(name string, v any, durable bool) error {
	p, err := s.Path(name)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return Errorf(CodeInternal, "cannot encode session state: %v", err)
	}
	if durable {
		err = renameio.WriteFile(p, b, 0o600, renameio.WithTempDir(filepath.Dir(p)))
	} else {
		err = writeThenRename(p, b)
	}
	if err != nil {
		return Errorf(CodeIOError, "cannot write session state %s: %v", p, err)
	}
	return nil
}

// writeThenRename replaces p by a temporary file holding b (0600), unsynced.
func writeThenRename(p string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// FileStamp identifies a version of a file for conflict detection. Like git's index it
// holds the file's metadata (size, mtime, ctime, inode, device), which a read gets for
// free; the content's hash is added where metadata cannot be trusted alone (see
// NeedsHash), so reading the end of a huge file never hashes all of it.
type FileStamp struct {
	Path    string    `json:"path"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mtime"`
	CTime   time.Time `json:"ctime,omitzero"`
	Inode   uint64    `json:"inode,omitempty"`
	Device  uint64    `json:"device,omitempty"`
	SHA256  string    `json:"sha256"`
}

// RacyWindow is how close to the moment of a read a file's timestamps must be for the
// read to distrust them (git's "racily clean" entries): a change in the same clock tick,
// or within the 1-2 s granularity of some file systems, leaves them unchanged. Clocks of
// network file systems that run ahead fall in it too.
const RacyWindow = 2 * time.Second

// MetaStamp is the stamp of a file's metadata, without a hash.
func MetaStamp(abs string, fi fs.FileInfo) FileStamp {
	st := FileStamp{Path: abs, Size: fi.Size(), ModTime: fi.ModTime().UTC()} // UTC: no time zone to load
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.CTime = time.Unix(sys.Ctim.Unix()).UTC()
		st.Inode = sys.Ino
		st.Device = uint64(sys.Dev) // uint32 on some architectures
	}
	return st
}

// StampOf computes the stamp of content read from a file with the given info.
func StampOf(abs string, fi fs.FileInfo, content []byte) FileStamp {
	st := MetaStamp(abs, fi)
	sum := sha256.Sum256(content)
	st.SHA256 = hex.EncodeToString(sum[:])
	return st
}

// NeedsHash reports whether a read at time now must hash the content for its stamp to
// be trusted: the file's timestamps are within RacyWindow of now (a change in the same
// tick would not show), or the platform gave no ctime and inode to compare.
func (st FileStamp) NeedsHash(now time.Time) bool {
	if st.Inode == 0 || st.CTime.IsZero() {
		return true
	}
	latest := st.ModTime
	if st.CTime.After(latest) {
		latest = st.CTime
	}
	return !latest.Before(now.Add(-RacyWindow))
}

// SameMetadata reports whether two stamps describe the same version of a file by
// metadata alone; fields an older record lacks are not compared.
func (st FileStamp) SameMetadata(o FileStamp) bool {
	if st.Size != o.Size || !st.ModTime.Equal(o.ModTime) {
		return false
	}
	if !st.CTime.IsZero() && !o.CTime.IsZero() && !st.CTime.Equal(o.CTime) {
		return false
	}
	if st.Inode != 0 && o.Inode != 0 && (st.Inode != o.Inode || st.Device != o.Device) {
		return false
	}
	return true
}

// identical reports whether two stamps hold the same values, every field compared
// (SameMetadata skips what an older record lacks; such a record is rewritten whole).
func (st FileStamp) identical(o FileStamp) bool {
	return st.Path == o.Path && st.Size == o.Size && st.ModTime.Equal(o.ModTime) && st.CTime.Equal(o.CTime) &&
		st.Inode == o.Inode && st.Device == o.Device && st.SHA256 == o.SHA256
}

func readRecordName(abs string) string {
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join("reads", hex.EncodeToString(sum[:16])+".json")
}

// RecordRead remembers that this session saw a version of a file.
func (s *Session) RecordRead(st FileStamp) error {
	if last, ok, err := s.LastRead(st.Path); err == nil && ok && last.identical(st) {
		return nil // a read of an unchanged file: the record stands
	}
	return s.SaveRecord(readRecordName(st.Path), st)
}

// LastRead returns the session's record of a file, if any.
func (s *Session) LastRead(abs string) (FileStamp, bool, error) {
	var st FileStamp
	if err := s.LoadJSON(readRecordName(abs), &st); err != nil {
		return st, false, err
	}
	return st, st.Path == abs, nil
}

// CheckFresh returns a conflict error when this session read the file and its content
// has changed since. current is the file's present stamp.
func (s *Session) CheckFresh(current FileStamp) error {
	last, ok, err := s.LastRead(current.Path)
	if err != nil {
		// A record torn by a crash (see SaveRecord): reading again writes a new one.
		return Errorf(CodeConflict, "this session's record of reading %s cannot be used (%v); read the file again, then redo the change", current.Path, AsError(err).Message)
	}
	if !ok {
		return nil
	}
	switch {
	case last.SHA256 != "" && current.SHA256 != "":
		if last.SHA256 == current.SHA256 {
			return nil
		}
	case last.SHA256 == "":
		// The read trusted metadata (not racy, see NeedsHash): any change to it counts,
		// a touch included, since the content seen then cannot be compared now.
		if last.SameMetadata(current) {
			return nil
		}
	}
	return Errorf(CodeConflict, "%s changed since this session read it (it was %d bytes at %s, it is %d bytes at %s); read it again and redo the change on the current content",
		current.Path, last.Size, last.ModTime.Format(time.RFC3339), current.Size, current.ModTime.Format(time.RFC3339))
}
