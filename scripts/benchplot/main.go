// Command benchplot turns the hyperfine results of scripts/bench into the benchmark
// report: a markdown table of medians and ratios (agentbox / reference) and an SVG bar
// chart of the ratios on a log scale, with a line at 1.0 and each row's target.
//
// scripts/bench writes one line per row to a TSV file (id, title, target, note,
// agentbox command, reference command) and, for every round, a hyperfine JSON export
// named ID.rN.json (a / in the id written as _) whose two results are named "agentbox" and "reference". benchplot
// pools the run times of each command over all rounds and takes the median.
//
// A target is a ratio ("1.25": agentbox at most 1.25x the reference), an added time
// ("+5": agentbox at most 5 ms slower than the reference) or "-" (none: informative).
//
// Usage:
//
//	benchplot -rows rows.tsv -results DIR [-meta meta.md] [-md bench.md] [-svg bench.svg]
//
// The table also goes to standard output.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"html"
	"io"
	"log"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// row is one line of the report.
type row struct {
	id, title, target, note, acmd, rcmd string
	a, r                                float64 // medians, ms
	na, nr                              int     // samples pooled
}

func (w *row) ratio() float64 { return w.a / w.r }

// targetRatio returns the ratio the target allows (for the chart) and whether there
// is a target at all.
func (w *row) targetRatio() (float64, bool) {
	switch {
	case w.target == "" || w.target == "-":
		return 0, false
	case strings.HasPrefix(w.target, "+"):
		d, err := strconv.ParseFloat(w.target[1:], 64)
		if err != nil {
			return 0, false
		}
		return (w.r + d) / w.r, true
	default:
		t, err := strconv.ParseFloat(w.target, 64)
		return t, err == nil
	}
}

// met reports "yes", "no" or "" (no target).
func (w *row) met() string {
	t, ok := w.targetRatio()
	switch {
	case !ok:
		return ""
	case w.ratio() <= t:
		return "yes"
	default:
		return "no"
	}
}

func (w *row) targetText() string {
	switch {
	case w.target == "" || w.target == "-":
		return "–"
	case strings.HasPrefix(w.target, "+"):
		return "≤ +" + w.target[1:] + " ms"
	default:
		return "≤ " + w.target + "x"
	}
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("benchplot: ")
	rowsPath := flag.String("rows", "", "TSV of rows written by scripts/bench")
	results := flag.String("results", "", "directory of hyperfine JSON exports (ID.rN.json)")
	metaPath := flag.String("meta", "", "markdown put above the table (machine, date, method)")
	mdPath := flag.String("md", "", "write the markdown report here")
	svgPath := flag.String("svg", "", "write the SVG chart here")
	flag.Parse()
	if *rowsPath == "" || *results == "" {
		flag.Usage()
		os.Exit(2)
	}
	rows, err := readRows(*rowsPath, *results)
	if err != nil {
		log.Fatal(err)
	}
	var meta string
	if *metaPath != "" {
		b, err := os.ReadFile(*metaPath)
		if err != nil {
			log.Fatal(err)
		}
		meta = string(b)
	}
	writeTable(os.Stdout, rows)
	if *mdPath != "" {
		var b strings.Builder
		writeMarkdown(&b, rows, meta, *svgPath)
		if err := os.WriteFile(*mdPath, []byte(b.String()), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	if *svgPath != "" {
		var b strings.Builder
		writeSVG(&b, rows)
		if err := os.WriteFile(*svgPath, []byte(b.String()), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

// readRows reads the row list and pools each row's run times over its rounds.
func readRows(path, dir string) ([]*row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []*row
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 6 {
			return nil, fmt.Errorf("%s: want 6 tab-separated fields, got %d: %q", path, len(c), sc.Text())
		}
		w := &row{id: c[0], title: c[1], target: c[2], note: c[3], acmd: c[4], rcmd: c[5]}
		files, _ := filepath.Glob(filepath.Join(dir, strings.ReplaceAll(w.id, "/", "_")+".r*.json"))
		if len(files) == 0 {
			continue // not run (quick mode)
		}
		var at, rt []float64
		for _, p := range files {
			a, r, err := readHyperfine(p)
			if err != nil {
				return nil, err
			}
			at, rt = append(at, a...), append(rt, r...)
		}
		w.a, w.r, w.na, w.nr = median(at)*1000, median(rt)*1000, len(at), len(rt)
		rows = append(rows, w)
	}
	return rows, sc.Err()
}

// readHyperfine returns the run times (seconds) of the commands named agentbox and
// reference in one hyperfine JSON export.
func readHyperfine(path string) (a, r []float64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var doc struct {
		Results []struct {
			Command string    `json:"command"`
			Times   []float64 `json:"times"`
		} `json:"results"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	for _, res := range doc.Results {
		switch res.Command {
		case "agentbox":
			a = res.Times
		case "reference":
			r = res.Times
		}
	}
	if len(a) == 0 || len(r) == 0 {
		return nil, nil, fmt.Errorf("%s: want results named agentbox and reference", path)
	}
	return a, r, nil
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func ms(v float64) string {
	if v < 10 {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

func writeTable(w io.Writer, rows []*row) {
	fmt.Fprintf(w, "%-34s %11s %11s %7s %9s %s\n", "row", "agentbox ms", "ref ms", "ratio", "target", "met")
	for _, r := range rows {
		fmt.Fprintf(w, "%-34s %11s %11s %6.2fx %9s %s\n", r.id, ms(r.a), ms(r.r), r.ratio(), r.targetText(), r.met())
	}
}

// cell escapes | for a table cell (GitHub splits cells on it even inside code spans).
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func writeMarkdown(w io.Writer, rows []*row, meta, svgPath string) {
	fmt.Fprintln(w, "# Benchmarks")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Generated by `scripts/bench`; do not edit by hand.")
	fmt.Fprintln(w)
	if meta != "" {
		fmt.Fprintln(w, strings.TrimSpace(meta))
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "| row | what | agentbox (ms) | reference (ms) | ratio | target | met? |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---|---|")
	for _, r := range rows {
		met := r.met()
		if met == "" {
			met = "–"
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %.2fx | %s | %s |\n", r.id, cell(r.title), ms(r.a), ms(r.r), r.ratio(), r.targetText(), met)
	}
	fmt.Fprintln(w)
	if svgPath != "" {
		fmt.Fprintf(w, "![ratio agentbox / reference per row](%s)\n\n", filepath.Base(svgPath))
	}
	fmt.Fprintln(w, "## What each row runs")
	fmt.Fprintln(w)
	for _, r := range rows {
		fmt.Fprintf(w, "- `%s` (%d / %d runs): %s\n", r.id, r.na, r.nr, r.note)
		fmt.Fprintf(w, "  - agentbox: `%s`\n", r.acmd)
		fmt.Fprintf(w, "  - reference: `%s`\n", r.rcmd)
	}
}

// writeSVG draws one horizontal bar per row from 1.0 to its ratio on a log2 axis:
// green where the target is met, red where it is missed, grey where there is none.
// A black tick marks the row's target; a dashed line marks 1.0.
func writeSVG(w io.Writer, rows []*row) {
	const (
		left, right, top, rowH, barH = 300.0, 70.0, 50.0, 22.0, 14.0
		plotW                        = 560.0
	)
	lo, hi := 0.5, 2.0
	for _, r := range rows {
		lo, hi = math.Min(lo, r.ratio()), math.Max(hi, r.ratio())
		if t, ok := r.targetRatio(); ok {
			hi = math.Max(hi, t)
		}
	}
	lo = math.Exp2(math.Floor(math.Log2(lo)))
	hi = math.Exp2(math.Ceil(math.Log2(hi)))
	x := func(v float64) float64 {
		return left + plotW*(math.Log2(v)-math.Log2(lo))/(math.Log2(hi)-math.Log2(lo))
	}
	width := left + plotW + right
	height := top + rowH*float64(len(rows)) + 50
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(w, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(w, `<text x="%.0f" y="20" font-size="14" font-weight="bold">agentbox time / reference time (median; log scale; left of 1.0 = agentbox faster)</text>`+"\n", 10.0)
	bottom := top + rowH*float64(len(rows))
	for v := lo; v <= hi*1.0001; v *= 2 {
		fmt.Fprintf(w, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", x(v), top-5, x(v), bottom)
		fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#555">%sx</text>`+"\n", x(v), bottom+15, strconv.FormatFloat(v, 'g', 4, 64))
	}
	for i, r := range rows {
		y := top + rowH*float64(i)
		fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", left-8, y+rowH/2+4, html.EscapeString(r.id))
		color := "#999"
		switch r.met() {
		case "yes":
			color = "#3a9a4a"
		case "no":
			color = "#d0443a"
		}
		x0, x1 := x(1), x(r.ratio())
		if x1 < x0 {
			x0, x1 = x1, x0
		}
		fmt.Fprintf(w, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s: %.2fx (%s ms / %s ms)</title></rect>`+"\n",
			x0, y+(rowH-barH)/2, math.Max(x1-x0, 1), barH, color, html.EscapeString(r.id), r.ratio(), ms(r.a), ms(r.r))
		labelX := math.Max(x(r.ratio()), x(1))
		if t, ok := r.targetRatio(); ok {
			fmt.Fprintf(w, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black" stroke-width="2"/>`+"\n", x(t), y+1, x(t), y+rowH-1)
			labelX = math.Max(labelX, x(t))
		}
		fmt.Fprintf(w, `<text x="%.1f" y="%.1f" fill="#333">%.2fx</text>`+"\n", labelX+4, y+rowH/2+4, r.ratio())
	}
	fmt.Fprintf(w, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black" stroke-dasharray="4 3"/>`+"\n", x(1), top-8, x(1), bottom+2)
	ly := bottom + 35
	legend := []struct{ color, text string }{{"#3a9a4a", "target met"}, {"#d0443a", "target missed"}, {"#999", "no target"}}
	lx := 10.0
	for _, l := range legend {
		fmt.Fprintf(w, `<rect x="%.0f" y="%.0f" width="12" height="12" fill="%s"/><text x="%.0f" y="%.0f">%s</text>`+"\n", lx, ly-10, l.color, lx+16, ly, l.text)
		lx += 120
	}
	fmt.Fprintf(w, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="black" stroke-width="2"/><text x="%.0f" y="%.0f">target</text>`+"\n", lx+5, ly-11, lx+5, ly+2, lx+14, ly)
	fmt.Fprintln(w, "</svg>")
}
