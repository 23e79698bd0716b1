package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/plexus-hpc/plexus/internal/svg"
)

// railRow is one result of plexus bench rail.
type railRow struct {
	Bench   string  `json:"bench"` // bandwidth or latency
	Impl    string  `json:"impl"`
	Rails   int     `json:"rails"`
	Size    int     `json:"size"`
	Value   float64 `json:"value"`
	Unit    string  `json:"unit"` // Mbit/s or us
	Compete bool    `json:"compete,omitempty"`
	// Aggregated latency: µs per message of a stream of them, several
	// in flight, rather than half a round trip.
	Aggregated bool  `json:"aggregated,omitempty"`
	Bytes      int64 `json:"bytes,omitempty"` // the payload the receiver counted, in one run
	Runs       int   `json:"runs,omitempty"`  // the value is the median of as many
	// Rounds are the runs' values in round order, where there were
	// several: the targets' ratios pair them round by round.
	Rounds []float64 `json:"rounds,omitempty"`
	Note   string    `json:"note,omitempty"`
}

// railRowMark starts the line that carries a row from rank 0 to the
// command, after plexus run's "[0] ".
const railRowMark = "plexus-bench-rail-row "

// rowCollector takes the job's output: rank 0's row lines become rows,
// every other line goes on to w (progress, or a rank's complaint).
type rowCollector struct {
	w    io.Writer
	buf  []byte
	rows []railRow
}

func newRowCollector(w io.Writer) *rowCollector { return &rowCollector{w: w} }

func (c *rowCollector) Write(p []byte) (int, error) {
	c.buf = append(c.buf, p...)
	for {
		i := bytes.IndexByte(c.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		c.line(string(c.buf[:i]))
		c.buf = c.buf[i+1:]
	}
}

// Flush passes on a last line without a newline.
func (c *rowCollector) Flush() {
	if len(c.buf) > 0 {
		c.line(string(c.buf))
		c.buf = nil
	}
}

func (c *rowCollector) line(s string) {
	if js, ok := strings.CutPrefix(s, "[0] "+railRowMark); ok {
		var r railRow
		if err := json.Unmarshal([]byte(js), &r); err == nil {
			c.rows = append(c.rows, r)
			return
		}
	}
	fmt.Fprintln(c.w, s)
}

// writeRailJSON prints rows as one JSON array.
func writeRailJSON(w io.Writer, rows []railRow) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}

// railTable is one table of the report: a bench, with or without the
// competing flow, sizes down, impls across.
type railTable struct {
	bench               string
	compete, aggregated bool
}

// writeRailTables prints a table per bench, the notes, then the ratios.
func writeRailTables(w io.Writer, rows []railRow) error {
	for _, t := range []railTable{{"bandwidth", false, false}, {"bandwidth", true, false}, {"latency", false, false}, {"latency", false, true}} {
		writeRailTable1(w, rows, t)
	}
	notes := map[string]bool{}
	for _, r := range rows {
		if r.Note != "" && !notes[r.Impl+": "+r.Note] {
			notes[r.Impl+": "+r.Note] = true
			fmt.Fprintf(w, "note: %s: %s\n", r.Impl, r.Note)
		}
	}
	fmt.Fprintln(w, "\nratios against the targets:")
	for _, r := range railRatios(rows) {
		fmt.Fprintln(w, "  "+r)
	}
	return nil
}

func writeRailTable1(w io.Writer, rows []railRow, t railTable) {
	cells := map[int]map[string]float64{}
	var impls []string
	unit, rails := "", 0
	for _, r := range rows {
		if r.Bench != t.bench || r.Compete != t.compete || r.Aggregated != t.aggregated || r.Size == 0 {
			continue
		}
		if cells[r.Size] == nil {
			cells[r.Size] = map[string]float64{}
		}
		cells[r.Size][r.Impl] = r.Value
		if !contains(impls, r.Impl) {
			impls = append(impls, r.Impl)
		}
		unit, rails = r.Unit, r.Rails
	}
	if len(cells) == 0 {
		return
	}
	title := t.bench
	if t.compete {
		title += ", a competing flow on the fastest rail for the first half"
	}
	if t.aggregated {
		title += " per message, aggregated: a stream of them, up to 64 in flight"
	}
	fmt.Fprintf(w, "\n%s over %d rails (%s)\n", title, rails, unit)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "size\t%s\t\n", strings.Join(impls, "\t"))
	for _, size := range sortedSizes(cells) {
		fmt.Fprint(tw, sizeName(size))
		for _, im := range impls {
			if v, ok := cells[size][im]; ok && v > 0 {
				fmt.Fprintf(tw, "\t%.1f", v)
			} else if ok {
				fmt.Fprint(tw, "\tfailed") // its note says why
			} else {
				fmt.Fprint(tw, "\t-")
			}
		}
		fmt.Fprintln(tw, "\t")
	}
	tw.Flush()
}

func sortedSizes(m map[int]map[string]float64) []int {
	var out []int
	for s := range m {
		out = append(out, s)
	}
	sort.Ints(out)
	return out
}

// sizeName writes a size in B, KiB or MiB.
func sizeName(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// writeRailSVG plots bandwidth against size, one line per impl, those
// under the competing flow dashed.
func writeRailSVG(path string, rows []railRow) error {
	p := svg.LinePlot{Title: "plexus bench rail: bandwidth against message size", XLabel: "message size, log2 bytes", YLabel: "Mbit/s"}
	idx := map[string]int{}
	for _, r := range rows {
		if r.Bench != "bandwidth" || r.Size == 0 || r.Value <= 0 {
			continue
		}
		name := r.Impl
		if r.Compete {
			name += " (compete)"
		}
		k, ok := idx[name]
		if !ok {
			k = len(p.Series)
			idx[name] = k
			p.Series = append(p.Series, svg.Series{Name: name, Dashed: r.Compete})
		}
		p.Series[k].X = append(p.Series[k].X, math.Log2(float64(r.Size)))
		p.Series[k].Y = append(p.Series[k].Y, r.Value)
	}
	if len(p.Series) == 0 {
		return fmt.Errorf("--svg %s: no bandwidth rows to plot", path)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := svg.WriteLinePlot(f, p); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
