// Package tty asks a person questions on the controlling terminal (/dev/tty), never on
// stdin or stdout: those belong to the agent that called agentbox. It offers a
// permission question (allow once / allow for the session / reject) and the question
// forms of the ask applet: single choice (arrow keys or numbers, Enter), multiple
// choice (Space toggles), free text. Ctrl-C cancels with ErrCancelled and leaves the
// terminal as it was.
//
// The terminal is put in raw mode (golang.org/x/term) only for the time of a question
// and restored by Close. Every widget works on a plain io.Reader / io.Writer pair, so
// tests drive it with key bytes.
package tty

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"
)

// ErrCancelled is returned when the person pressed Ctrl-C (or the input ended).
var ErrCancelled = errors.New("the question was cancelled at the terminal")

// Term is a terminal to ask on.
type Term struct {
	in      *bufio.Reader
	out     io.Writer
	f       *os.File
	restore func()
	lines   int // lines drawn by the current widget, for redrawing
}

// Open opens /dev/tty in raw mode. It fails when there is no controlling terminal.
func Open() (*Term, error) {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("no terminal to ask on: %w", err)
	}
	st, err := term.MakeRaw(int(f.Fd()))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot put the terminal in raw mode: %w", err)
	}
	t := New(f, f)
	t.f = f
	t.restore = func() { _ = term.Restore(int(f.Fd()), st) }
	return t, nil
}

// New wraps a reader and writer (for tests, or a host's own pty).
func New(in io.Reader, out io.Writer) *Term {
	return &Term{in: bufio.NewReader(in), out: out}
}

// Close restores the terminal and closes it.
func (t *Term) Close() error {
	if t.restore != nil {
		t.restore()
		t.restore = nil
	}
	if t.f != nil {
		fmt.Fprint(t.out, "\x1b[?25h") // cursor back on
		return t.f.Close()
	}
	return nil
}

type key int

const (
	keyRune key = iota
	keyUp
	keyDown
	keyEnter
	keySpace
	keyBackspace
	keyCancel
	keyClear
	keyOther
)

func (t *Term) readKey() (key, rune, error) {
	r, _, err := t.in.ReadRune()
	if err != nil {
		return keyCancel, 0, err
	}
	switch r {
	case 3, 4: // Ctrl-C, Ctrl-D
		return keyCancel, 0, nil
	case '\r', '\n':
		return keyEnter, 0, nil
	case ' ':
		return keySpace, ' ', nil
	case 0x7f, 0x08:
		return keyBackspace, 0, nil
	case 0x15: // Ctrl-U
		return keyClear, 0, nil
	case 0x10: // Ctrl-P
		return keyUp, 0, nil
	case 0x0e: // Ctrl-N
		return keyDown, 0, nil
	case 0x1b:
		b, err := t.in.ReadByte()
		if err != nil {
			return keyCancel, 0, err
		}
		if b != '[' && b != 'O' {
			return keyOther, 0, nil
		}
		// Read to the final byte of the sequence (0x40..0x7e).
		var last byte
		for {
			last, err = t.in.ReadByte()
			if err != nil {
				return keyCancel, 0, err
			}
			if last >= 0x40 && last <= 0x7e {
				break
			}
		}
		switch last {
		case 'A':
			return keyUp, 0, nil
		case 'B':
			return keyDown, 0, nil
		}
		return keyOther, 0, nil
	}
	if r < 0x20 {
		return keyOther, 0, nil
	}
	return keyRune, r, nil
}

// draw replaces what the widget drew last with lines.
func (t *Term) draw(lines []string) {
	var b strings.Builder
	if t.lines > 1 {
		fmt.Fprintf(&b, "\x1b[%dA", t.lines-1)
	}
	b.WriteString("\r\x1b[J")
	b.WriteString(strings.Join(lines, "\r\n"))
	t.lines = len(lines)
	io.WriteString(t.out, b.String())
}

// done ends a widget: the cursor goes below it.
func (t *Term) done() {
	io.WriteString(t.out, "\r\n")
	t.lines = 0
}

// Option is one choice of a question.
type Option struct {
	Label       string
	Description string
}

// Question is one question of the ask applet.
type Question struct {
	Header  string
	Text    string
	Options []Option
	Multi   bool
	// Custom adds a last choice that lets the person type an answer of their own.
	Custom bool
	// Default preselects (choice) or prefills (free text).
	Default string
}

// Reply is the answer to a Question: the chosen option indexes and/or typed text.
type Reply struct {
	Selected []int
	Text     string
}

// Ask asks one question: free text when it has no options, else a choice.
func (t *Term) Ask(q Question) (Reply, error) {
	if len(q.Options) == 0 {
		s, err := t.Text(title(q), q.Default)
		return Reply{Text: s}, err
	}
	return t.Choose(q)
}

func title(q Question) string {
	if q.Header != "" {
		return q.Header + ": " + q.Text
	}
	return q.Text
}

// Choose asks a single or multiple choice question.
func (t *Term) Choose(q Question) (Reply, error) {
	opts := append([]Option(nil), q.Options...)
	customIdx := -1
	if q.Custom {
		customIdx = len(opts)
		opts = append(opts, Option{Label: "Type your own answer"})
	}
	cur := 0
	picked := make([]bool, len(opts))
	for i, o := range q.Options {
		if q.Default != "" && o.Label == q.Default {
			cur = i
			picked[i] = q.Multi
		}
	}
	hint := "↑/↓ or number to choose, Enter to confirm, Ctrl-C to cancel"
	if q.Multi {
		hint = "↑/↓ to move, Space or number to toggle, Enter to confirm, Ctrl-C to cancel"
	}
	render := func() {
		lines := []string{"\x1b[1m" + title(q) + "\x1b[0m", "\x1b[2m" + hint + "\x1b[0m"}
		for i, o := range opts {
			pointer := "  "
			if i == cur {
				pointer = "\x1b[36m>\x1b[0m "
			}
			box := ""
			if q.Multi && i != customIdx {
				box = "[ ] "
				if picked[i] {
					box = "[x] "
				}
			}
			line := fmt.Sprintf("%s%d. %s%s", pointer, i+1, box, o.Label)
			if o.Description != "" {
				line += "\x1b[2m — " + o.Description + "\x1b[0m"
			}
			lines = append(lines, line)
		}
		t.draw(lines)
	}
	finish := func() (Reply, error) {
		var r Reply
		if q.Multi {
			for i, p := range picked {
				if p && i != customIdx {
					r.Selected = append(r.Selected, i)
				}
			}
		} else if cur != customIdx {
			r.Selected = []int{cur}
		}
		t.done()
		if cur == customIdx {
			s, err := t.Text("Your answer", "")
			if err != nil {
				return Reply{}, err
			}
			r.Text = s
		}
		return r, nil
	}
	for {
		render()
		k, r, err := t.readKey()
		if err != nil || k == keyCancel {
			t.done()
			return Reply{}, ErrCancelled
		}
		switch k {
		case keyUp:
			cur = (cur + len(opts) - 1) % len(opts)
		case keyDown:
			cur = (cur + 1) % len(opts)
		case keySpace:
			if q.Multi && cur != customIdx {
				picked[cur] = !picked[cur]
			}
		case keyEnter:
			return finish()
		case keyRune:
			if r == 'k' {
				cur = (cur + len(opts) - 1) % len(opts)
			} else if r == 'j' {
				cur = (cur + 1) % len(opts)
			} else if n := int(r - '1'); r >= '1' && r <= '9' && n < len(opts) {
				cur = n
				if !q.Multi || cur == customIdx {
					render()
					return finish()
				}
				picked[cur] = !picked[cur]
			}
		}
	}
}

// Text reads a line of free text; Enter on an empty line takes def.
func (t *Term) Text(prompt, def string) (string, error) {
	var buf []rune
	for {
		line := "\x1b[1m" + prompt + "\x1b[0m"
		if def != "" {
			line += " \x1b[2m[" + def + "]\x1b[0m"
		}
		t.draw([]string{line, "> " + string(buf)})
		k, r, err := t.readKey()
		if err != nil || k == keyCancel {
			t.done()
			return "", ErrCancelled
		}
		switch k {
		case keyEnter:
			t.done()
			if len(buf) == 0 {
				return def, nil
			}
			return string(buf), nil
		case keyBackspace:
			if len(buf) > 0 {
				buf = buf[:len(buf)-1]
			}
		case keyClear:
			buf = buf[:0]
		case keyRune, keySpace:
			if utf8.ValidRune(r) {
				buf = append(buf, r)
			}
		}
	}
}
