package svg

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// HeatMap is a square matrix drawn as coloured cells, row i column j
// holding Values[i][j].
type HeatMap struct {
	Title string
	// Labels name the rows and columns (CPU ids); nil numbers them 0..n-1.
	Labels []string
	Values [][]float64
	// Unit follows values in tooltips and the legend, e.g. "ns".
	Unit string
	// RowAxis and ColAxis title the axes, e.g. "sender" and "receiver".
	RowAxis, ColAxis string
	// IgnoreDiagonal leaves the diagonal out of the colour scale and draws
	// it grey: a cost matrix's diagonal is a meaningless 0 that would
	// otherwise stretch the scale.
	IgnoreDiagonal bool
}

// Layout of one heat map panel, in pixels.
const (
	hmLeft      = 70  // row labels and row axis title
	hmTop       = 70  // panel title, column labels and column axis title
	hmGrid      = 560 // target side of the grid
	hmLegendGap = 20
	hmLegendW   = 16
	hmRight     = 70 // legend tick labels
	hmBottom    = 40 // column axis title
	legendSteps = 64
)

// WriteHeatMap writes one heat map as an SVG document.
func WriteHeatMap(w io.Writer, h HeatMap) error { return WriteHeatMaps(w, "", h) }

// WriteHeatMaps writes heat maps side by side under a common title (which
// may be empty), each with its own colour scale: the send and receive
// matrices of a machine differ several-fold in magnitude, and one shared
// scale would flatten the send map.
func WriteHeatMaps(w io.Writer, title string, maps ...HeatMap) error {
	if len(maps) == 0 {
		return errors.New("svg: no heat maps")
	}
	for i := range maps {
		if err := maps[i].check(); err != nil {
			return err
		}
	}
	var width, height float64
	for _, h := range maps {
		pw, ph := h.panelSize()
		width += pw
		height = math.Max(height, ph)
	}
	// Titles wrap to fit; the panels' grids stay level below the longest.
	top, panelLines := 0.0, 1
	if title != "" {
		top = 14 + float64(len(wrapText(title, titleSize, width-20)))*titleLine
	}
	for _, h := range maps {
		panelLines = max(panelLines, len(h.titleLines()))
	}
	extra := float64(panelLines-1) * titleLine
	d := newDoc(width, height+top+extra)
	if title != "" {
		d.title(width/2, 20, width-20, title)
	}
	x := 0.0
	for _, h := range maps {
		h.draw(d, x, top, extra)
		pw, _ := h.panelSize()
		x += pw
	}
	return d.finish(w)
}

// titleLines wraps the panel title to fit the panel, centred over the
// grid.
func (h *HeatMap) titleLines() []string {
	pw, _ := h.panelSize()
	mid := hmLeft + h.cell()*float64(len(h.Values))/2
	return wrapText(h.Title, titleSize, 2*math.Min(mid, pw-mid)-10)
}

func (h *HeatMap) check() error {
	n := len(h.Values)
	if n == 0 {
		return fmt.Errorf("svg: heat map %q is empty", h.Title)
	}
	for i, row := range h.Values {
		if len(row) != n {
			return fmt.Errorf("svg: heat map %q: row %d has %d values, want %d", h.Title, i, len(row), n)
		}
	}
	if h.Labels != nil && len(h.Labels) != n {
		return fmt.Errorf("svg: heat map %q: %d labels for %d rows", h.Title, len(h.Labels), n)
	}
	return nil
}

// cell returns the side of one cell: large enough to see, small enough
// that a 256-CPU matrix fits a screen.
func (h *HeatMap) cell() float64 {
	return math.Max(2, math.Min(24, hmGrid/float64(len(h.Values))))
}

func (h *HeatMap) panelSize() (w, ht float64) {
	g := h.cell() * float64(len(h.Values))
	return hmLeft + g + hmLegendGap + hmLegendW + hmRight, hmTop + g + hmBottom
}

func (h *HeatMap) label(i int) string {
	if h.Labels == nil {
		return strconv.Itoa(i)
	}
	return h.Labels[i]
}

// scale returns the range of the values the colours span.
func (h *HeatMap) scale() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i, row := range h.Values {
		for j, v := range row {
			if (i != j || !h.IgnoreDiagonal) && !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	switch {
	case lo > hi: // nothing but the diagonal
		return 0, 1
	case lo == hi: // a constant matrix still needs a non-empty scale
		return lo, lo + 1
	}
	return lo, hi
}

// draw draws the panel at (ox, oy), its grid lowered by extra to leave
// room for the longest panel title.
func (h *HeatMap) draw(d *doc, ox, oy, extra float64) {
	cs, n := h.cell(), len(h.Values)
	g := cs * float64(n)
	gx, gy := ox+hmLeft, oy+hmTop+extra
	for i, l := range h.titleLines() {
		d.text(gx+g/2, oy+18+float64(i)*titleLine, "middle", "panel-title", l)
	}
	lo, hi := h.scale()
	d.printf("<g class=\"cells\" shape-rendering=\"crispEdges\">\n")
	for i, row := range h.Values {
		for j, v := range row {
			fill := colourAt((v - lo) / (hi - lo))
			if i == j && h.IgnoreDiagonal {
				fill = "#d0d0d0"
			}
			d.printf(`<rect class="cell" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s → %s: %s %s</title></rect>`+"\n",
				num(gx+float64(j)*cs), num(gy+float64(i)*cs), num(cs), num(cs), fill,
				esc(h.label(i)), esc(h.label(j)), formatValue(v), esc(h.Unit))
		}
	}
	d.printf("</g>\n")
	h.drawAxes(d, gx, gy, g)
	h.drawLegend(d, gx+g+hmLegendGap, gy, g, lo, hi)
}

// drawAxes labels every k-th row and column so labels never overlap.
func (h *HeatMap) drawAxes(d *doc, gx, gy, g float64) {
	cs, n := h.cell(), len(h.Values)
	every := int(math.Ceil(12 / cs))
	for i := 0; i < n; i += every {
		c := float64(i)*cs + cs/2
		d.text(gx-4, gy+c+4, "end", "row-label", h.label(i))
		d.printf(`<text x="%s" y="%s" text-anchor="start" class="col-label" font-size="10" transform="rotate(-90 %s %s)">%s</text>`+"\n",
			num(gx+c+4), num(gy-4), num(gx+c+4), num(gy-4), esc(h.label(i)))
	}
	d.vtext(gx-hmLeft+14, gy+g/2, "axis-title", h.RowAxis)
	d.text(gx+g/2, gy+g+24, "middle", "axis-title", h.ColAxis)
}

// drawLegend draws the colour scale as a vertical bar, high values on top.
func (h *HeatMap) drawLegend(d *doc, x, y, g, lo, hi float64) {
	step := g / legendSteps
	for k := 0; k < legendSteps; k++ {
		f := 1 - (float64(k)+0.5)/legendSteps
		d.printf(`<rect class="legend" x="%s" y="%s" width="%d" height="%s" fill="%s"/>`+"\n",
			num(x), num(y+float64(k)*step), hmLegendW, num(step+0.5), colourAt(f))
	}
	for _, v := range niceTicks(lo, hi, 5) {
		ty := y + g*(1-(v-lo)/(hi-lo))
		d.line(x+hmLegendW, ty, x+hmLegendW+4, ty, "black", 1)
		d.text(x+hmLegendW+6, ty+4, "start", "legend-label", formatValue(v)+" "+h.Unit)
	}
}
