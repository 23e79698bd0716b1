package svg

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// Series is one line of a plot: points (X[i], Y[i]) joined in order.
type Series struct {
	Name string
	X, Y []float64
	// Dashed draws the line dashed, to set apart e.g. adaptive topologies
	// from static ones.
	Dashed bool
}

// LinePlot is a plot of several series against shared axes. A linear y
// axis starts at 0 so that heights compare as ratios; a logarithmic one
// (LogY) spans the data, so that series orders of magnitude apart all
// keep their shape and equal ratios look equal everywhere.
type LinePlot struct {
	Title, XLabel, YLabel string
	Series                []Series
	// LogY draws the y axis on a log scale; every y must be positive.
	LogY bool
}

// Plot area layout, in pixels; the top grows with the title's lines.
const (
	lpLeft, lpTop, lpRight, lpBottom = 70, 40, 170, 50
	lpW, lpH                         = 640, 400
)

// WriteLinePlot writes p as an SVG document with axis ticks and a legend.
// Series are told apart by colour (a colour-blind-safe palette), marker
// shape and, where Dashed, the line's dashes.
func WriteLinePlot(w io.Writer, p LinePlot) error {
	xlo, xhi, ylo, yhi, err := p.bounds()
	if err != nil {
		return err
	}
	width := float64(lpLeft + lpW + lpRight)
	titleW := float64(lpW + lpLeft) // centred over the plot area, clear of both edges
	top := lpTop + float64(len(wrapText(p.Title, titleSize, titleW))-1)*titleLine
	d := newDoc(width, top+lpH+lpBottom)
	d.title(lpLeft+lpW/2, 24, titleW, p.Title)
	xt := niceTicks(xlo, xhi, 10)
	xlo, xhi = math.Min(xlo, xt[0]), math.Max(xhi, xt[len(xt)-1])
	px := func(x float64) float64 { return lpLeft + (x-xlo)/(xhi-xlo)*lpW }
	yt, py := p.yAxis(ylo, yhi, top)
	p.drawAxes(d, top, xt, yt, px, py)
	for i, s := range p.Series {
		drawSeries(d, i, s, px, py)
	}
	p.drawLegend(d, top)
	return d.finish(w)
}

// yAxis returns the y ticks and the map from values to pixels.
func (p *LinePlot) yAxis(ylo, yhi, top float64) ([]float64, func(float64) float64) {
	if !p.LogY {
		yt := niceTicks(0, yhi, 6)
		yhi = math.Max(yhi, yt[len(yt)-1])
		return yt, func(y float64) float64 { return top + lpH - y/yhi*lpH }
	}
	// A log axis spans the data with a little room; rounding it out to
	// whole ticks would waste up to half a decade at each end.
	lo, hi := ylo/1.15, yhi*1.15
	yt := slices.DeleteFunc(logTicks(lo, hi), func(v float64) bool { return v < lo || v > hi })
	if len(yt) < 2 {
		yt = logTicks(lo, hi)
		lo, hi = yt[0], yt[len(yt)-1]
	}
	llo, lhi := math.Log10(lo), math.Log10(hi)
	return yt, func(y float64) float64 { return top + lpH - (math.Log10(y)-llo)/(lhi-llo)*lpH }
}

func (p *LinePlot) bounds() (xlo, xhi, ylo, yhi float64, err error) {
	xlo, xhi, ylo, yhi = math.Inf(1), math.Inf(-1), math.Inf(1), 0
	for _, s := range p.Series {
		if len(s.X) != len(s.Y) {
			return 0, 0, 0, 0, fmt.Errorf("svg: series %q has %d x and %d y values", s.Name, len(s.X), len(s.Y))
		}
		for i := range s.X {
			if math.IsNaN(s.X[i]) || math.IsNaN(s.Y[i]) || math.IsInf(s.X[i], 0) || math.IsInf(s.Y[i], 0) {
				return 0, 0, 0, 0, fmt.Errorf("svg: series %q point %d is not finite", s.Name, i)
			}
			if p.LogY && s.Y[i] <= 0 {
				return 0, 0, 0, 0, fmt.Errorf("svg: series %q point %d: y = %g on a log axis", s.Name, i, s.Y[i])
			}
			xlo, xhi = math.Min(xlo, s.X[i]), math.Max(xhi, s.X[i])
			ylo, yhi = math.Min(ylo, s.Y[i]), math.Max(yhi, s.Y[i])
		}
	}
	if xlo > xhi {
		return 0, 0, 0, 0, errors.New("svg: line plot has no points")
	}
	if xlo == xhi {
		xlo, xhi = xlo-1, xhi+1
	}
	if yhi <= 0 {
		yhi = 1
	}
	return xlo, xhi, ylo, yhi, nil
}

func (p *LinePlot) drawAxes(d *doc, top float64, xt, yt []float64, px, py func(float64) float64) {
	bottom := top + lpH
	for _, y := range yt {
		d.line(lpLeft, py(y), lpLeft+lpW, py(y), "#e0e0e0", 1)
		d.text(lpLeft-6, py(y)+4, "end", "tick", formatValue(y))
	}
	for _, x := range xt {
		d.line(px(x), bottom, px(x), bottom+5, "black", 1)
		d.text(px(x), bottom+18, "middle", "tick", formatValue(x))
	}
	d.line(lpLeft, bottom, lpLeft+lpW, bottom, "black", 1)
	d.line(lpLeft, bottom, lpLeft, top, "black", 1)
	d.text(lpLeft+lpW/2, bottom+40, "middle", "axis-title", p.XLabel)
	yl := p.YLabel
	if p.LogY {
		yl += ", log scale"
	}
	d.vtext(18, top+lpH/2, "axis-title", yl)
}

func drawSeries(d *doc, i int, s Series, px, py func(float64) float64) {
	c := seriesColour(i)
	d.printf(`<g class="series"><title>%s</title>`+"\n", esc(s.Name))
	d.printf(`<polyline fill="none" stroke="%s" stroke-width="2"%s points="`, c, dashes(s))
	for k := range s.X {
		d.printf("%s,%s ", num(px(s.X[k])), num(py(s.Y[k])))
	}
	d.printf("\"/>\n")
	for k := range s.X {
		marker(d, i, px(s.X[k]), py(s.Y[k]), "point",
			fmt.Sprintf("%s: %s, %s", s.Name, formatValue(s.X[k]), formatValue(s.Y[k])))
	}
	d.printf("</g>\n")
}

func dashes(s Series) string {
	if s.Dashed {
		return ` stroke-dasharray="6 3"`
	}
	return ""
}

// marker draws series i's point marker: a circle, square, triangle or
// diamond in turn, so that lines that share a colour hue still differ.
func marker(d *doc, i int, x, y float64, class, title string) {
	c, t := seriesColour(i), ""
	if title != "" {
		t = "<title>" + esc(title) + "</title>"
	}
	const r = 3.5
	var pts [][2]float64
	switch i % 4 {
	case 0:
		d.printf(`<circle class="%s" cx="%s" cy="%s" r="%s" fill="%s">%s</circle>`+"\n", class, num(x), num(y), num(r), c, t)
		return
	case 1:
		pts = [][2]float64{{-r, -r}, {r, -r}, {r, r}, {-r, r}}
	case 2:
		pts = [][2]float64{{0, -1.3 * r}, {1.2 * r, r}, {-1.2 * r, r}}
	default:
		pts = [][2]float64{{0, -1.4 * r}, {1.4 * r, 0}, {0, 1.4 * r}, {-1.4 * r, 0}}
	}
	d.printf(`<polygon class="%s" fill="%s" points="`, class, c)
	for _, p := range pts {
		d.printf("%s,%s ", num(x+p[0]), num(y+p[1]))
	}
	d.printf("\">%s</polygon>\n", t)
}

// drawLegend lists the series in the order of their last points, highest
// first, so that the legend reads as the lines end at the right edge.
func (p *LinePlot) drawLegend(d *doc, top float64) {
	order := make([]int, len(p.Series))
	for i := range order {
		order[i] = i
	}
	last := func(i int) float64 {
		if y := p.Series[i].Y; len(y) > 0 {
			return y[len(y)-1]
		}
		return math.Inf(-1)
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(last(b), last(a)) })
	x := float64(lpLeft + lpW + 16)
	for k, i := range order {
		s := p.Series[i]
		y := top + 10 + 20*float64(k)
		d.printf(`<line class="legend" x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2"%s/>`+"\n",
			num(x), num(y), num(x+28), num(y), seriesColour(i), dashes(s))
		marker(d, i, x+14, y, "legend-marker", "")
		d.text(x+34, y+4, "start", "legend-label", s.Name)
	}
}
