package core

import (
	"fmt"
	"io"

	"github.com/fatih/color"
)

// Printer writes text output. Colour is decided once, by the front end (a terminal and
// no NO_COLOR), so applets never look at the terminal themselves.
type Printer struct {
	W     io.Writer
	Color bool
	// Err receives notes (no matches, files skipped, truncation) so that W carries only
	// results and a pipe reads nothing else; nil sends them to W.
	Err *Printer

	path, match, lineNo, dim, warn, ok *color.Color
}

// NewPrinter returns a printer that colours only when useColor is true.
func NewPrinter(w io.Writer, useColor bool) *Printer {
	p := &Printer{W: w, Color: useColor}
	mk := func(attrs ...color.Attribute) *color.Color {
		c := color.New(attrs...)
		if useColor {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c
	}
	p.path = mk(color.FgMagenta)
	p.match = mk(color.FgRed, color.Bold)
	p.lineNo = mk(color.FgGreen)
	p.dim = mk(color.Faint)
	p.warn = mk(color.FgYellow)
	p.ok = mk(color.FgGreen, color.Bold)
	return p
}

// Note writes a line of secondary text to Err (or W), dimmed.
func (p *Printer) Note(s string) {
	to := p
	if p.Err != nil {
		to = p.Err
	}
	fmt.Fprintln(to.W, to.Dim(s))
}

// Printf writes formatted text.
func (p *Printer) Printf(format string, args ...any) { fmt.Fprintf(p.W, format, args...) }

// Println writes its arguments followed by a newline.
func (p *Printer) Println(args ...any) { fmt.Fprintln(p.W, args...) }

// Write writes raw bytes, so a Printer can be an io.Writer.
func (p *Printer) Write(b []byte) (int, error) { return p.W.Write(b) }

// Path styles a file path.
func (p *Printer) Path(s string) string { return p.path.Sprint(s) }

// Match styles matched text.
func (p *Printer) Match(s string) string { return p.match.Sprint(s) }

// LineNo styles a line number.
func (p *Printer) LineNo(s string) string { return p.lineNo.Sprint(s) }

// Dim styles secondary text (notes, truncation markers).
func (p *Printer) Dim(s string) string { return p.dim.Sprint(s) }

// Warn styles a warning.
func (p *Printer) Warn(s string) string { return p.warn.Sprint(s) }

// OK styles a success marker.
func (p *Printer) OK(s string) string { return p.ok.Sprint(s) }
