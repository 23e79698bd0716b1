package svg

import (
	"errors"
	"fmt"
	"io"
	"math"
)

// Series is one line of a plot: points (X[i], Y[i]) joined in order.
type Series struct {
	Name string
	X, Y []float64
	// Dashed draws the line dashed, to set apart e.g. adaptive topologies
	// from static ones.
	Dashed bool
}

// LinePlot is a plot of several series against shared axes; the y axis
// starts at 0 so that heights compare as ratios.
type LinePlot struct {
	Title, XLabel, YLabel string
	Series                []Series
}

// Plot area layout, in pixels.
const (
	lpLeft, lpTop, lpRight, lpBottom = 70, 40, 150, 50
	lpW, lpH                         = 640, 400
)

// WriteLinePlot writes p as an SVG document with axis ticks and a legend.
func WriteLinePlot(w io.Writer, p LinePlot) error {
	xlo, xhi, yhi, err := p.bounds()
	if err != nil {
		return err
	}
	d := newDoc(lpLeft+lpW+lpRight, lpTop+lpH+lpBottom)
	d.text(lpLeft+lpW/2, 24, "middle", "title", p.Title)
	xt, yt := niceTicks(xlo, xhi, 10), niceTicks(0, yhi, 6)
	// Round the axes out to whole ticks so the last tick sits on the edge.
	xlo, xhi, yhi = math.Min(xlo, xt[0]), math.Max(xhi, xt[len(xt)-1]), math.Max(yhi, yt[len(yt)-1])
	px := func(x float64) float64 { return lpLeft + (x-xlo)/(xhi-xlo)*lpW }
	py := func(y float64) float64 { return lpTop + lpH - y/yhi*lpH }
	p.drawAxes(d, xt, yt, px, py)
	for i, s := range p.Series {
		drawSeries(d, i, s, px, py)
	}
	p.drawLegend(d)
	return d.finish(w)
}

func (p *LinePlot) bounds() (xlo, xhi, yhi float64, err error) {
	xlo, xhi, yhi = math.Inf(1), math.Inf(-1), 0
	for _, s := range p.Series {
		if len(s.X) != len(s.Y) {
			return 0, 0, 0, fmt.Errorf("svg: series %q has %d x and %d y values", s.Name, len(s.X), len(s.Y))
		}
		for i := range s.X {
			if math.IsNaN(s.X[i]) || math.IsNaN(s.Y[i]) || math.IsInf(s.X[i], 0) || math.IsInf(s.Y[i], 0) {
				return 0, 0, 0, fmt.Errorf("svg: series %q point %d is not finite", s.Name, i)
			}
			xlo, xhi, yhi = math.Min(xlo, s.X[i]), math.Max(xhi, s.X[i]), math.Max(yhi, s.Y[i])
		}
	}
	if xlo > xhi {
		return 0, 0, 0, errors.New("svg: line plot has no points")
	}
	if xlo == xhi {
		xlo, xhi = xlo-1, xhi+1
	}
	if yhi <= 0 {
		yhi = 1
	}
	return xlo, xhi, yhi, nil
}

func (p *LinePlot) drawAxes(d *doc, xt, yt []float64, px, py func(float64) float64) {
	x0, y0 := float64(lpLeft), py(0)
	for _, y := range yt {
		d.line(lpLeft, py(y), lpLeft+lpW, py(y), "#e0e0e0", 1)
		d.text(lpLeft-6, py(y)+4, "end", "tick", formatValue(y))
	}
	for _, x := range xt {
		d.line(px(x), y0, px(x), y0+5, "black", 1)
		d.text(px(x), y0+18, "middle", "tick", formatValue(x))
	}
	d.line(x0, y0, lpLeft+lpW, y0, "black", 1)
	d.line(x0, y0, x0, lpTop, "black", 1)
	d.text(lpLeft+lpW/2, lpTop+lpH+40, "middle", "axis-title", p.XLabel)
	d.vtext(18, lpTop+lpH/2, "axis-title", p.YLabel)
}

func drawSeries(d *doc, i int, s Series, px, py func(float64) float64) {
	c := seriesColour(i)
	dash := ""
	if s.Dashed {
		dash = ` stroke-dasharray="6 3"`
	}
	d.printf(`<g class="series"><title>%s</title>`+"\n", esc(s.Name))
	d.printf(`<polyline fill="none" stroke="%s" stroke-width="2"%s points="`, c, dash)
	for k := range s.X {
		d.printf("%s,%s ", num(px(s.X[k])), num(py(s.Y[k])))
	}
	d.printf("\"/>\n")
	for k := range s.X {
		d.printf(`<circle class="point" cx="%s" cy="%s" r="3" fill="%s"><title>%s: %s, %s</title></circle>`+"\n",
			num(px(s.X[k])), num(py(s.Y[k])), c, esc(s.Name), formatValue(s.X[k]), formatValue(s.Y[k]))
	}
	d.printf("</g>\n")
}

func (p *LinePlot) drawLegend(d *doc) {
	x := float64(lpLeft + lpW + 16)
	for i, s := range p.Series {
		y := float64(lpTop + 10 + 20*i)
		dash := ""
		if s.Dashed {
			dash = ` stroke-dasharray="6 3"`
		}
		d.printf(`<line class="legend" x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2"%s/>`+"\n",
			num(x), num(y), num(x+24), num(y), seriesColour(i), dash)
		d.text(x+30, y+4, "start", "legend-label", s.Name)
	}
}
