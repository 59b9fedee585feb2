package policy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/agentbox/agentbox/core/filelock"
	"github.com/agentbox/agentbox/core/statefile"
	"github.com/google/renameio/v2"
)

// Grant is a person's approval, kept for the session: "once" approves the next
// matching call only (it is consumed by it), "session" every matching call until the
// session ends or the grant is revoked.
type Grant struct {
	ID          string    `json:"id"`
	Permission  string    `json:"permission"`
	Pattern     string    `json:"pattern,omitempty"`
	Scope       string    `json:"scope"`             // once | session
	Shallow     bool      `json:"shallow,omitempty"` // a path grant that does not cover what is below the path
	Created     time.Time `json:"created"`
	Description string    `json:"description,omitempty"`
	Reason      string    `json:"reason,omitempty"`
	Prompted    bool      `json:"prompted,omitempty"` // given by answering a prompt (Rule.Prompted)
}

// Rule compiles the grant into a session-scope allow rule.
func (g Grant) Rule() (*Rule, error) {
	r, err := Compile(g.Permission, g.Pattern, Allow)
	if err != nil {
		return nil, err
	}
	r.Scope, r.Grant, r.Once, r.Shallow, r.Prompted = ScopeSession, g.ID, g.Scope == "once", g.Shallow, g.Prompted
	return r, nil
}

// Store keeps a session's grants in <dir>/grants.json. Every change happens under an
// exclusive file lock (<dir>/grants.lock) and replaces the file atomically, so
// concurrent agentbox processes of one session never lose a grant or use a once grant
// twice.
type Store struct {
	dir string
}

// OpenStore returns the grant store of a session directory (created if missing).
func OpenStore(dir string) *Store { return &Store{dir: dir} }

func (s *Store) file() string { return filepath.Join(s.dir, "grants.json") }

func (s *Store) locked(exclusive bool, fn func([]Grant) ([]Grant, bool, error)) error {
	unlock, err := filelock.Hold(context.Background(), filepath.Join(s.dir, "grants.lock"), !exclusive)
	if err != nil {
		return fmt.Errorf("grant store: %w", err)
	}
	defer unlock()
	gs, err := s.read()
	if err != nil {
		return err
	}
	out, changed, err := fn(gs)
	if err != nil || !changed {
		return err
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	if err := renameio.WriteFile(s.file(), append(data, '\n'), 0o600, renameio.WithTempDir(filepath.Dir(s.file()))); err != nil {
		return fmt.Errorf("grant store: writing %s: %w", s.file(), err)
	}
	return nil
}

func (s *Store) read() ([]Grant, error) {
	data, err := statefile.Read(s.file())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("grant store: %w", err)
	}
	var gs []Grant
	if err := json.Unmarshal(data, &gs); err != nil {
		return nil, fmt.Errorf("grant store: %s is damaged (%v); delete it to drop the session's grants", s.file(), err)
	}
	return gs, nil
}

// Add stores grants. A session grant equal to a stored one (same permission and
// pattern) is not stored twice; the stored one is returned instead.
func (s *Store) Add(gs ...Grant) ([]Grant, error) {
	for i := range gs {
		if gs[i].Scope == "" {
			gs[i].Scope = "session"
		}
		if gs[i].Scope != "once" && gs[i].Scope != "session" {
			return nil, fmt.Errorf("grant scope %q is not once or session", gs[i].Scope)
		}
		if _, err := gs[i].Rule(); err != nil {
			return nil, fmt.Errorf("grant %s %q: %v", gs[i].Permission, gs[i].Pattern, err)
		}
	}
	var added []Grant
	err := s.locked(true, func(cur []Grant) ([]Grant, bool, error) {
		added = added[:0]
	next:
		for _, g := range gs {
			if g.Scope == "session" {
				for i, c := range cur {
					if c.Scope == "session" && c.Permission == g.Permission && c.Pattern == g.Pattern && c.Shallow == g.Shallow {
						if c.Prompted && !g.Prompted {
							cur[i].Prompted = false // now named on purpose
							c = cur[i]
						}
						added = append(added, c)
						continue next
					}
				}
			}
			if g.ID == "" {
				g.ID = newID()
			}
			if g.Created.IsZero() {
				g.Created = time.Now().UTC()
			}
			cur = append(cur, g)
			added = append(added, g)
		}
		return cur, true, nil
	})
	return added, err
}

// List returns the stored grants, oldest first.
func (s *Store) List() ([]Grant, error) {
	var out []Grant
	err := s.locked(false, func(cur []Grant) ([]Grant, bool, error) {
		out = cur
		return nil, false, nil
	})
	return out, err
}

// Revoke removes the grants with the given ids (all grants when ids is empty) and
// returns those removed.
func (s *Store) Revoke(ids ...string) ([]Grant, error) {
	var removed []Grant
	err := s.locked(true, func(cur []Grant) ([]Grant, bool, error) {
		var keep []Grant
		for _, g := range cur {
			hit := len(ids) == 0
			for _, id := range ids {
				hit = hit || g.ID == id
			}
			if hit {
				removed = append(removed, g)
			} else {
				keep = append(keep, g)
			}
		}
		return keep, len(removed) > 0, nil
	})
	return removed, err
}

// Consume uses up a once grant; false means another call used it first.
func (s *Store) Consume(id string) (bool, error) {
	used := false
	err := s.locked(true, func(cur []Grant) ([]Grant, bool, error) {
		for i, g := range cur {
			if g.ID == id && g.Scope == "once" {
				used = true
				return append(cur[:i:i], cur[i+1:]...), true, nil
			}
		}
		return nil, false, nil
	})
	return used, err
}

// Rules compiles the stored grants into session-scope allow rules. A grant that no
// longer compiles is an error naming it, not a silently lost grant.
func (s *Store) Rules() ([]*Rule, error) {
	gs, err := s.List()
	if err != nil {
		return nil, err
	}
	rules := make([]*Rule, 0, len(gs))
	for _, g := range gs {
		r, err := g.Rule()
		if err != nil {
			return nil, fmt.Errorf("grant store %s: grant %s: %v; revoke it with `agentbox permit revoke %s`", s.file(), g.ID, err, g.ID)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

func newID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "g-" + hex.EncodeToString(b[:])
}
