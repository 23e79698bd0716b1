package svg

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"
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

// palette holds the series colours: Paul Tol's "muted" scheme, nine
// colours that stay distinct under the common forms of colour blindness.
var palette = []string{
	"#332288", "#88ccee", "#44aa99", "#117733", "#999933",
	"#ddcc77", "#cc6677", "#882255", "#aa4499",
}

func seriesColour(i int) string { return palette[i%len(palette)] }

// groupPalette fills tree nodes: Paul Tol's "light" scheme, pale enough
// for black labels on top and distinct under colour blindness, ordered so
// that the first eight (neighbouring NUMA nodes) differ most.
var groupPalette = []string{
	"#77aadd", "#ee8866", "#44bb99", "#ffaabb", "#eedd88",
	"#99ddff", "#aaaa00", "#dddddd", "#bbcc33",
}

func groupColour(i int) string { return groupPalette[i%len(groupPalette)] }

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

// textWidth estimates the width in pixels of s in the document's
// sans-serif font at size px. Without font metrics it errs wide, using
// DejaVu Sans widths (the usual fallback) rounded up per class of
// character, so that layouts sized by it leave room rather than clip.
func textWidth(s string, size float64) float64 {
	var em float64
	for _, r := range s {
		switch {
		case strings.ContainsRune("iljtfI.,:;'|!() ", r):
			em += 0.4
		case strings.ContainsRune("mwMW@%", r):
			em += 1.0
		case r >= 'A' && r <= 'Z':
			em += 0.8
		default:
			em += 0.64
		}
	}
	return em * size
}

// wrapText breaks s into lines no wider than maxW at size px: at spaces,
// and within a word too wide for a line after a '-' or '_' (as in model
// names), or anywhere as a last resort.
func wrapText(s string, size, maxW float64) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		for i, piece := range splitWord(w, size, maxW) {
			sep := " "
			if i > 0 {
				sep = ""
			}
			switch {
			case line == "":
				line = piece
			case textWidth(line+sep+piece, size) <= maxW:
				line += sep + piece
			default:
				lines = append(lines, line)
				line = piece
			}
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}

// splitWord cuts w into pieces no wider than maxW, preferably just after
// a '-' or '_'.
func splitWord(w string, size, maxW float64) []string {
	var pieces []string
	for textWidth(w, size) > maxW {
		r := []rune(w)
		fit := 1 // runes that fit, at least one so that the loop ends
		for fit < len(r) && textWidth(string(r[:fit+1]), size) <= maxW {
			fit++
		}
		cut := fit
		if i := strings.LastIndexAny(string(r[:fit]), "-_"); i >= 0 {
			cut = utf8.RuneCountInString(string(r[:fit])[:i]) + 1
		}
		pieces = append(pieces, string(r[:cut]))
		w = string(r[cut:])
	}
	return append(pieces, w)
}

// title writes s centred at x in lines that fit width, the first baseline
// at y, and returns the y below the last line.
func (d *doc) title(x, y, width float64, s string) float64 {
	for _, l := range wrapText(s, titleSize, width) {
		d.text(x, y, "middle", "title", l)
		y += titleLine
	}
	return y
}

// Title text: the document's default font size, and its line height.
const (
	titleSize = 12
	titleLine = 16
)

// logTicks returns ticks for a log axis covering [lo, hi] (both > 0),
// from the last tick at or below lo to the first at or above hi: 1, 2
// and 5 times powers of ten, or powers of ten alone where the range spans
// more than three decades and 1-2-5 would crowd the labels.
func logTicks(lo, hi float64) []float64 {
	if !(hi > lo) {
		hi = lo * 10
	}
	mult := []float64{1, 2, 5}
	if math.Log10(hi/lo) > 3 {
		mult = []float64{1}
	}
	var ticks []float64
	for e := math.Floor(math.Log10(lo)); ; e++ {
		p := math.Pow(10, e)
		for _, m := range mult {
			v := m * p
			if v <= lo*(1+1e-9) {
				ticks = append(ticks[:0], v) // the last tick at or below lo
				continue
			}
			ticks = append(ticks, v)
			if v >= hi*(1-1e-9) {
				return ticks
			}
		}
	}
}
