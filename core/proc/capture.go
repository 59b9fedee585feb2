package proc

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// Output is one captured stream.
type Output struct {
	Text      string `json:"text"`                 // whole, or head + a line saying what was left out + tail
	Bytes     int64  `json:"bytes"`                // bytes the command wrote
	Truncated bool   `json:"truncated,omitempty"`  // Text is not the whole stream
	SpillPath string `json:"spill_path,omitempty"` // the whole stream (0600), when truncated and a spill directory was given
}

// capture is an io.Writer that keeps the first cap bytes of a stream in memory;
// past the cap it moves everything to a spill file and keeps only a head and a
// ring-buffer tail, so memory stays bounded whatever the command prints.
type capture struct {
	limit    int
	spillDir string
	name     string // stdout / stderr, for the spill file's name
	spillMax int64  // stop writing the spill file past this size (disk guard)

	buf   []byte // the first limit bytes (while under the cap), then the head
	tail  []byte // ring buffer of the last limit/2 bytes once over the cap
	tpos  int    // next write position in tail
	tfull bool
	total int64
	over  bool
	spill *os.File
	spErr error
	spLen int64
}

func newCapture(limit int, spillDir, name string, spillMax int64) *capture {
	return &capture{limit: limit, spillDir: spillDir, name: name, spillMax: spillMax}
}

func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(n)
	if !c.over {
		if len(c.buf)+len(p) <= c.limit {
			c.buf = append(c.buf, p...)
			return n, nil
		}
		c.goOver()
	}
	c.toSpill(p)
	// The head fills first, as long as nothing went to the tail yet.
	if room := c.limit/2 - len(c.buf); room > 0 && c.tpos == 0 && !c.tfull {
		k := min(room, len(p))
		c.buf = append(c.buf, p[:k]...)
		p = p[k:]
	}
	c.toTail(p)
	return n, nil
}

// goOver switches to head + tail mode; the bytes kept so far start the spill file.
func (c *capture) goOver() {
	c.over = true
	if c.spillDir != "" {
		f, err := os.CreateTemp(c.spillDir, "bash-*."+c.name)
		if err == nil {
			err = f.Chmod(0o600)
		}
		c.spill, c.spErr = f, err
	}
	c.toSpill(c.buf)
	head := min(c.limit/2, len(c.buf))
	c.tail = make([]byte, c.limit-c.limit/2)
	c.toTail(c.buf[head:])
	c.buf = c.buf[:head:head]
}

func (c *capture) toSpill(p []byte) {
	if c.spill == nil || c.spErr != nil {
		return
	}
	if c.spillMax > 0 && c.spLen+int64(len(p)) > c.spillMax {
		p = p[:max(0, c.spillMax-c.spLen)]
	}
	if len(p) == 0 {
		return
	}
	m, err := c.spill.Write(p)
	c.spLen += int64(m)
	if err != nil {
		c.spErr = err
	}
}

func (c *capture) toTail(p []byte) {
	if len(p) == 0 {
		return
	}
	if len(p) >= len(c.tail) {
		copy(c.tail, p[len(p)-len(c.tail):])
		c.tpos, c.tfull = 0, true
		return
	}
	k := copy(c.tail[c.tpos:], p)
	if k < len(p) {
		copy(c.tail, p[k:])
		c.tfull = true
	}
	c.tpos = (c.tpos + len(p)) % len(c.tail)
	if c.tpos == 0 {
		c.tfull = true
	}
}

// result closes the spill file and renders the stream.
func (c *capture) result() Output {
	o := Output{Bytes: c.total}
	if !c.over {
		o.Text = string(c.buf)
		return o
	}
	var tail []byte
	if c.tfull {
		tail = append(append([]byte{}, c.tail[c.tpos:]...), c.tail[:c.tpos]...)
	} else {
		tail = c.tail[:c.tpos]
	}
	head := c.buf
	// Cut at line boundaries when one is near, so no half lines are shown.
	if i := bytes.LastIndexByte(head, '\n'); i >= len(head)/2 {
		head = head[:i+1]
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)/2 {
		tail = tail[i+1:]
	}
	// Nor half characters: a cut inside a UTF-8 sequence would show as U+FFFD that
	// is not in the output.
	for k := 1; k <= utf8.UTFMax-1 && k <= len(head); k++ {
		if b := head[len(head)-k]; b < utf8.RuneSelf {
			break
		} else if utf8.RuneStart(b) {
			if !utf8.FullRune(head[len(head)-k:]) {
				head = head[:len(head)-k]
			}
			break
		}
	}
	for k := 0; k < utf8.UTFMax-1 && len(tail) > 0 && !utf8.RuneStart(tail[0]); k++ {
		tail = tail[1:]
	}
	left := c.total - int64(len(head)) - int64(len(tail))
	o.Truncated = true
	where := "the whole output was not saved (no spill directory)"
	if c.spill != nil {
		name := c.spill.Name()
		c.spill.Close()
		if abs, err := filepath.Abs(name); err == nil {
			name = abs
		}
		o.SpillPath = name
		where = "the whole output is in " + name
		switch {
		case c.spErr != nil:
			where = fmt.Sprintf("the output saved in %s is incomplete (%v)", name, c.spErr)
		case c.spillMax > 0 && c.spLen < c.total:
			where = fmt.Sprintf("the first %d bytes of the output are in %s", c.spLen, name)
		}
	} else if c.spErr != nil {
		where = fmt.Sprintf("the whole output could not be saved: %v", c.spErr)
	}
	sep := ""
	if len(head) > 0 && head[len(head)-1] != '\n' {
		sep = "\n"
	}
	o.Text = fmt.Sprintf("%s%s[... %d bytes of %s left out; %s ...]\n%s", head, sep, left, c.name, where, tail)
	return o
}
