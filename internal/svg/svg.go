package svg

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"
)

// doc accumulates an SVG document; the writers build it in memory and
// write it once so that a failed write leaves no half-formed output to
// reason about.
type doc struct {
	b strings.Builder
}

func newDoc(width, height float64) *doc {
	d := &doc{}
	d.printf(`<?xml version="1.0" encoding="UTF-8"?>`+"\n"+
		`<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="sans-serif" font-size="12">`+"\n",
		num(width), num(height), num(width), num(height))
	d.printf(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	return d
}

func (d *doc) printf(format string, args ...any) { fmt.Fprintf(&d.b, format, args...) }

// text writes a text element; anchor is start, middle or end.
func (d *doc) text(x, y float64, anchor, class, s string) {
	d.printf(`<text x="%s" y="%s" text-anchor="%s" class="%s">%s</text>`+"\n", num(x), num(y), anchor, class, esc(s))
}

// vtext writes text rotated to read bottom to top, for y-axis labels.
func (d *doc) vtext(x, y float64, class, s string) {
	d.printf(`<text x="%s" y="%s" text-anchor="middle" class="%s" transform="rotate(-90 %s %s)">%s</text>`+"\n",
		num(x), num(y), class, num(x), num(y), esc(s))
}

func (d *doc) line(x1, y1, x2, y2 float64, stroke string, width float64) {
	d.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"/>`+"\n",
		num(x1), num(y1), num(x2), num(y2), stroke, num(width))
}

func (d *doc) finish(w io.Writer) error {
	d.b.WriteString("</svg>\n")
	_, err := io.WriteString(w, d.b.String())
	return err
}

// num formats a coordinate compactly: two decimals are far below a pixel
// and keep large heat maps small.
func num(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s)) // writing to a Builder cannot fail
	return b.String()
}

// palette holds distinguishable colours for series (Tableau 10).
var palette = []string{
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
	"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
}

func seriesColour(i int) string { return palette[i%len(palette)] }

// viridis stops, sampled evenly; colourAt interpolates between them. A
// perceptually uniform map reads correctly in grey scale too.
var viridis = [][3]float64{
	{68, 1, 84}, {72, 40, 120}, {62, 74, 137}, {49, 104, 142}, {38, 130, 142},
	{31, 158, 137}, {53, 183, 121}, {109, 205, 89}, {180, 222, 44}, {253, 231, 37},
}

// colourAt maps f in [0, 1] to a colour; NaN and values outside are clamped.
func colourAt(f float64) string {
	if math.IsNaN(f) {
		f = 0
	}
	f = math.Max(0, math.Min(1, f)) * float64(len(viridis)-1)
	i := int(math.Min(f, float64(len(viridis)-2)))
	t := f - float64(i)
	var c [3]int
	for k := range c {
		c[k] = int(math.Round(viridis[i][k] + t*(viridis[i+1][k]-viridis[i][k])))
	}
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2])
}

// niceTicks returns about n round tick values covering [lo, hi].
func niceTicks(lo, hi float64, n int) []float64 {
	if !(hi > lo) {
		hi = lo + 1
	}
	step := niceStep((hi - lo) / float64(max(1, n)))
	var ticks []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		ticks = append(ticks, math.Round(v/step)*step)
	}
	return ticks
}

// niceStep rounds raw up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// formatValue prints a tick or legend value without needless decimals.
func formatValue(v float64) string {
	if math.Abs(v) >= 100 || v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}
