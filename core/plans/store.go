package plans

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
	"github.com/google/renameio/v2"
)

// Store is the plans directory.
type Store struct {
	Dir string
	Now func() time.Time // creation dates; nil means time.Now
}

// ErrNotFound is returned (wrapped) for a plan id with no file.
var ErrNotFound = errors.New("plan not found")

// InputError is a request the store refuses (bad id, step out of range, bad status).
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputErr(format string, args ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, args...)}
}

// fileRE is compiled on first use: a regexp compiled at init costs every applet's start-up.
var fileRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^plan-(\d{3,})\.md$`) })

// NormalizeID accepts "plan-001", "plan-1", "1" or "001" and returns "plan-001".
func NormalizeID(id string) (string, error) {
	s := strings.TrimSuffix(strings.TrimSpace(id), ".md")
	s = strings.TrimPrefix(s, "plan-")
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || len(s) > 9 {
		return "", inputErr("%q is not a plan id; plan ids look like plan-001 (use the list action to see them)", id)
	}
	return fmt.Sprintf("plan-%03d", n), nil
}

func (s *Store) path(id string) string { return filepath.Join(s.Dir, id+".md") }

// lock takes an exclusive lock on name's lock file (created beside the plans, hidden).
func (s *Store) lock(name string) (*flock.Flock, error) {
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, err
	}
	l := flock.New(filepath.Join(s.Dir, "."+name+".lock"))
	if err := l.Lock(); err != nil {
		return nil, fmt.Errorf("locking %s: %w", name, err)
	}
	return l, nil
}

func (s *Store) today() string {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	return now().Format("2006-01-02")
}

func validate(title string, steps []Step, status Status) error {
	if strings.TrimSpace(title) == "" {
		return inputErr("the plan needs a title")
	}
	if strings.ContainsAny(title, "\r\n") {
		return inputErr("the title must be one line")
	}
	if len(steps) == 0 {
		return inputErr("the plan needs at least one step")
	}
	for i, st := range steps {
		if strings.TrimSpace(st.Description) == "" {
			return inputErr("step %d has no description", i+1)
		}
		if strings.ContainsAny(st.Description, "\r\n") {
			return inputErr("step %d's description must be one line; put details in its notes", i+1)
		}
		if st.Status != "" && !st.Status.Valid() {
			return inputErr("step %d has status %q; use pending, in_progress, completed or skipped", i+1, st.Status)
		}
	}
	if status != "" && !status.Valid() {
		return inputErr("plan status %q is not one of draft, active, completed, abandoned", status)
	}
	return nil
}

func newPlan(id, title string, steps []Step, status Status, created string) *Plan {
	if status == "" {
		status = Draft
	}
	p := &Plan{ID: id, Title: strings.TrimSpace(title), Status: status, Created: created}
	for _, st := range steps {
		if st.Status == "" {
			st.Status = Pending
		}
		st.Description = strings.TrimSpace(st.Description)
		st.Notes = strings.TrimSpace(strings.ReplaceAll(st.Notes, "\r\n", "\n"))
		p.Steps = append(p.Steps, st)
	}
	return p
}

// Create writes a new plan with the next free id (one more than the highest existing).
func (s *Store) Create(title string, steps []Step, status Status) (*Plan, error) {
	if err := validate(title, steps, status); err != nil {
		return nil, err
	}
	l, err := s.lock("create")
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	ids, err := s.ids()
	if err != nil {
		return nil, err
	}
	next := 1
	if len(ids) > 0 {
		next = ids[len(ids)-1] + 1
	}
	p := newPlan(fmt.Sprintf("plan-%03d", next), title, steps, status, s.today())
	if err := renameio.WriteFile(s.path(p.ID), p.Markdown(), 0o644); err != nil {
		return nil, err
	}
	return p, nil
}

// Update overwrites an existing plan with new content, keeping its creation date (if the
// old file parses) and its id.
func (s *Store) Update(id, title string, steps []Step, status Status) (*Plan, error) {
	id, err := NormalizeID(id)
	if err != nil {
		return nil, err
	}
	if err := validate(title, steps, status); err != nil {
		return nil, err
	}
	l, err := s.lock(id)
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	data, err := os.ReadFile(s.path(id))
	if err != nil {
		return nil, s.readErr(id, err)
	}
	created := s.today()
	if old, err := Parse(data); err == nil && old.Created != "" {
		created = old.Created
	}
	p := newPlan(id, title, steps, status, created)
	if err := renameio.WriteFile(s.path(id), p.Markdown(), 0o644); err != nil {
		return nil, err
	}
	return p, nil
}

// UpdateStep sets one step's status (1-based), changing only that step's marker in the
// file so a hand-edited plan keeps every other byte.
func (s *Store) UpdateStep(id string, step int, status StepStatus) (*Plan, error) {
	id, err := NormalizeID(id)
	if err != nil {
		return nil, err
	}
	l, err := s.lock(id)
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	data, err := os.ReadFile(s.path(id))
	if err != nil {
		return nil, s.readErr(id, err)
	}
	out, p, err := SetStep(data, step, status)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			pe.File = s.path(id)
		}
		return nil, err
	}
	if err := renameio.WriteFile(s.path(id), out, filePerm(s.path(id))); err != nil {
		return nil, err
	}
	return p, nil
}

func filePerm(path string) fs.FileMode {
	if fi, err := os.Stat(path); err == nil {
		return fi.Mode().Perm()
	}
	return 0o644
}

// Read returns a plan and its file's exact content.
func (s *Store) Read(id string) (*Plan, []byte, error) {
	id, err := NormalizeID(id)
	if err != nil {
		return nil, nil, err
	}
	data, err := os.ReadFile(s.path(id))
	if err != nil {
		return nil, nil, s.readErr(id, err)
	}
	p, err := s.parse(id, data)
	return p, data, err
}

// Summary is one line of List.
type Summary struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Status   Status `json:"status"`
	Created  string `json:"created"`
	Steps    int    `json:"steps"`
	Counts   Counts `json:"counts"`
	Progress string `json:"progress"`
	Error    string `json:"error,omitempty"` // the file does not parse
}

// List summarises every plan-NNN.md in the directory, sorted by id; other files are
// ignored and a file that does not parse is listed with its error.
func (s *Store) List() ([]Summary, error) {
	ids, err := s.ids()
	if err != nil {
		return nil, err
	}
	out := []Summary{}
	for _, n := range ids {
		id := fmt.Sprintf("plan-%03d", n)
		data, err := os.ReadFile(s.path(id))
		if err != nil {
			continue // removed since the scan
		}
		p, err := s.parse(id, data)
		if err != nil {
			out = append(out, Summary{ID: id, Error: err.Error()})
			continue
		}
		c := p.Progress()
		out = append(out, Summary{ID: id, Title: p.Title, Status: p.Status, Created: p.Created,
			Steps: c.Total, Counts: c, Progress: c.String()})
	}
	return out, nil
}

func (s *Store) ids() ([]int, error) {
	ents, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []int
	for _, e := range ents {
		if m := fileRE().FindStringSubmatch(e.Name()); m != nil && e.Type().IsRegular() {
			if n, err := strconv.Atoi(m[1]); err == nil {
				ids = append(ids, n)
			}
		}
	}
	sort.Ints(ids)
	return ids, nil
}

func (s *Store) parse(id string, data []byte) (*Plan, error) {
	p, err := Parse(data)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			pe.File = s.path(id)
		}
		return nil, err
	}
	return p, nil
}

func (s *Store) readErr(id string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s does not exist in %s; use the list action to see the plan ids", ErrNotFound, id, s.Dir)
	}
	return err
}
