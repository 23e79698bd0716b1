package svg

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// element is one parsed SVG element: its name, attributes and text.
type element struct {
	name  string
	attr  map[string]string
	text  string
	inner []element
}

// parse reads an SVG document into its root element, failing the test if
// it is not well-formed.
func parse(t *testing.T, data []byte) element {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	stack := []*element{{name: "document"}}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, head(data))
		}
		top := stack[len(stack)-1]
		switch tok := tok.(type) {
		case xml.StartElement:
			e := element{name: tok.Name.Local, attr: map[string]string{}}
			for _, a := range tok.Attr {
				e.attr[a.Name.Local] = a.Value
			}
			top.inner = append(top.inner, e)
			stack = append(stack, &top.inner[len(top.inner)-1])
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			top.text += string(tok)
		}
	}
	return stack[0].inner[0]
}

// all returns e's descendants named name, with the given class if class
// is not empty, in document order.
func (e element) all(name, class string) []element {
	var out []element
	for _, c := range e.inner {
		if c.name == name && (class == "" || c.attr["class"] == class) {
			out = append(out, c)
		}
		out = append(out, c.all(name, class)...)
	}
	return out
}

func (e element) f(t *testing.T, a string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(e.attr[a], 64)
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", e.name, a, e.attr[a], err)
	}
	return v
}

// box is an axis-aligned rectangle: left, top, right, bottom.
type box [4]float64

func (a box) overlaps(b box) bool {
	return a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

// textBox estimates where a text element's glyphs lie, from its anchor,
// font size (12 unless set) and textWidth; a rotated text has no box.
func textBox(t *testing.T, e element) box {
	t.Helper()
	size := 12.0
	if e.attr["font-size"] != "" {
		size = e.f(t, "font-size")
	}
	x, y, w := e.f(t, "x"), e.f(t, "y"), textWidth(e.text, size)
	switch e.attr["text-anchor"] {
	case "middle":
		x -= w / 2
	case "end":
		x -= w
	}
	return box{x, y - 0.8*size, x + w, y + 0.2*size}
}

func circleBox(t *testing.T, e element) box {
	x, y, r := e.f(t, "cx"), e.f(t, "cy"), e.f(t, "r")
	return box{x - r, y - r, x + r, y + r}
}

// wideTree returns a tree of n nodes shaped like Smelt's adaptive trees
// on big machines: a root with many children, a few levels, uneven
// fan-out, and ids that are not in layout order.
func wideTree(n int) TreeGraph {
	g := TreeGraph{Title: fmt.Sprintf("%d nodes", n), Root: 0, Children: map[int][]int{}}
	next, frontier := 1, []int{0}
	for fan := 13; next < n; fan = max(2, fan-3) {
		var nf []int
		for _, u := range frontier {
			for k := 0; k < fan && next < n; k++ {
				id := (next * 37) % n // scatter the ids
				g.Children[u] = append(g.Children[u], id)
				nf = append(nf, id)
				next++
			}
		}
		frontier = nf
	}
	return g
}

func TestWideTreeIsATree(t *testing.T) {
	for _, n := range []int{96, 192} {
		if _, _, _, err := layoutTree(wideTree(n)); err != nil {
			t.Fatalf("%d: %v", n, err)
		}
	}
}

// TestTreeLabelsDoNotOverlap checks every text of big trees against every
// other text and every node circle but its own.
func TestTreeLabelsDoNotOverlap(t *testing.T) {
	for _, n := range []int{4, 20, 96, 192, 384} {
		var b bytes.Buffer
		if err := WriteTree(&b, wideTree(n)); err != nil {
			t.Fatal(err)
		}
		root := parse(t, b.Bytes())
		texts := root.all("text", "")
		circles := append(root.all("circle", "node"), root.all("circle", "node root")...)
		if len(circles) != n {
			t.Fatalf("%d: %d nodes drawn", n, len(circles))
		}
		for i, a := range texts {
			ab := textBox(t, a)
			for _, c := range texts[i+1:] {
				if ab.overlaps(textBox(t, c)) {
					t.Errorf("%d nodes: %q at %v overlaps %q at %v", n, a.text, ab, c.text, textBox(t, c))
				}
			}
			for _, c := range circles {
				own := a.attr["class"] == "node-label" && c.attr["cx"] == a.attr["x"] && c.inner[0].text == "cpu "+a.text
				if !own && ab.overlaps(circleBox(t, c)) {
					t.Errorf("%d nodes: %q at %v overlaps node %s", n, a.text, ab, c.inner[0].text)
				}
			}
		}
	}
}

// TestTitleFits draws long titles and checks every title line lies within
// the canvas.
func TestTitleFits(t *testing.T) {
	long := "adaptive tree on x86-Intel-KnightsLanding-XeonPhi-7210-with-a-long-name, root 3: bcast 1003 ns, costs estimated from the topology"
	small := TreeGraph{Title: long, Root: 0, Children: map[int][]int{0: {1, 2}}}
	plot := LinePlot{Title: long + long, Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2}}}}
	for name, write := range map[string]func(io.Writer) error{
		"tree":     func(w io.Writer) error { return WriteTree(w, small) },
		"tree 96":  func(w io.Writer) error { return WriteTree(w, TreeGraph{Title: long, Children: wideTree(96).Children}) },
		"plot":     func(w io.Writer) error { return WriteLinePlot(w, plot) },
		"heat map": func(w io.Writer) error { return WriteHeatMaps(w, long, HeatMap{Title: long, Values: matrix(3)}) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(name, err)
		}
		root := parse(t, b.Bytes())
		width := root.f(t, "width")
		titles := append(root.all("text", "title"), root.all("text", "panel-title")...)
		if len(titles) == 0 {
			t.Fatalf("%s: no title", name)
		}
		for _, e := range titles {
			if tb := textBox(t, e); tb[0] < 0 || tb[2] > width {
				t.Errorf("%s: title line %q spans x %.0f..%.0f of a %.0f-wide canvas", name, e.text, tb[0], tb[2], width)
			}
		}
	}
}

// TestTreeLegend colours 96 nodes by four groups (and one group with no
// node in the tree) and checks one legend entry per group present and
// every node filled with its group's colour.
func TestTreeLegend(t *testing.T) {
	g := wideTree(96)
	for k := range 5 {
		grp := Group{Name: fmt.Sprintf("NUMA node %d", k)}
		for u := k; u < 96 && k < 4; u += 4 {
			grp.Nodes = append(grp.Nodes, u)
		}
		g.Groups = append(g.Groups, grp)
	}
	var b bytes.Buffer
	if err := WriteTree(&b, g); err != nil {
		t.Fatal(err)
	}
	root := parse(t, b.Bytes())
	legend := root.all("circle", "legend")
	if len(legend) != 4 {
		t.Fatalf("%d legend entries, want 4", len(legend))
	}
	labels := root.all("text", "legend-label")
	for k := range 4 {
		if want := fmt.Sprintf("NUMA node %d", k); labels[k+1].text != want {
			t.Errorf("legend entry %d reads %q, want %q", k, labels[k+1].text, want)
		}
	}
	for _, c := range append(root.all("circle", "node"), root.all("circle", "node root")...) {
		u, _ := strconv.Atoi(c.inner[0].text[len("cpu "):])
		if want := legend[u%4].attr["fill"]; c.attr["fill"] != want {
			t.Errorf("cpu %d filled %s, want %s", u, c.attr["fill"], want)
		}
	}
}

// TestLogAxis plots series two orders of magnitude apart, as a sweep's
// sequential tree against the others, and checks the y ticks: 1-2-5
// values on an axis that holds every point, spaced in proportion to their log ratios,
// labels apart, and the axis title saying the scale.
func TestLogAxis(t *testing.T) {
	p := LinePlot{Title: "bcast", YLabel: "latency (ns)", LogY: true}
	for i, name := range []string{"adaptive", "binary", "sequential"} {
		s := Series{Name: name}
		for k := 2; k <= 96; k += 2 {
			s.X = append(s.X, float64(k))
			s.Y = append(s.Y, 150*float64(k)*math.Pow(float64(k), float64(i)/2)/8)
		}
		p.Series = append(p.Series, s)
	}
	var b bytes.Buffer
	if err := WriteLinePlot(&b, p); err != nil {
		t.Fatal(err)
	}
	root := parse(t, b.Bytes())
	var vals, ys []float64
	var labels []element
	for _, e := range root.all("text", "tick") {
		if e.attr["text-anchor"] == "end" { // y ticks
			v, err := strconv.ParseFloat(e.text, 64)
			if err != nil {
				t.Fatalf("y tick %q: %v", e.text, err)
			}
			vals, ys, labels = append(vals, v), append(ys, e.f(t, "y")), append(labels, e)
		}
	}
	if len(vals) < 4 {
		t.Fatalf("y ticks %v: too few", vals)
	}
	for _, l := range root.all("polyline", "") {
		for _, xy := range strings.Fields(l.attr["points"]) {
			y, _ := strconv.ParseFloat(xy[strings.Index(xy, ",")+1:], 64)
			if y < lpTop || y > lpTop+lpH {
				t.Errorf("point %s lies outside the plot's %d..%d", xy, lpTop, lpTop+lpH)
			}
		}
	}
	perDecade := (ys[0] - ys[len(ys)-1]) / math.Log10(vals[len(vals)-1]/vals[0])
	for i, v := range vals {
		if m := v / math.Pow(10, math.Floor(math.Log10(v)+1e-9)); !slices.Contains([]float64{1, 2, 5}, math.Round(m*1e6)/1e6) {
			t.Errorf("tick %v is not 1, 2 or 5 times a power of ten", v)
		}
		if want := ys[0] - perDecade*math.Log10(v/vals[0]); math.Abs(ys[i]-want) > 0.1 {
			t.Errorf("tick %v at y %.2f, want %.2f on a log scale", v, ys[i], want)
		}
		if i > 0 && textBox(t, labels[i]).overlaps(textBox(t, labels[i-1])) {
			t.Errorf("tick labels %v and %v overlap", vals[i-1], v)
		}
	}
	if !strings.Contains(b.String(), "log scale") {
		t.Error("y axis title does not say log scale")
	}
	if err := WriteLinePlot(io.Discard, LinePlot{LogY: true, Series: []Series{{X: []float64{1}, Y: []float64{0}}}}); err == nil {
		t.Error("y = 0 on a log axis: no error")
	}
}

func TestLogTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   []float64
	}{
		{150, 4000, []float64{100, 200, 500, 1000, 2000, 5000}},
		{200, 1000, []float64{200, 500, 1000}},
		{3, 40000, []float64{1, 10, 100, 1000, 10000, 100000}},
		{7, 7, []float64{5, 10, 20, 50, 100}},
	} {
		if got := logTicks(c.lo, c.hi); !slices.Equal(got, c.want) {
			t.Errorf("logTicks(%v, %v) = %v, want %v", c.lo, c.hi, got, c.want)
		}
	}
}

func TestWrapText(t *testing.T) {
	for _, s := range []string{"", "short", "adaptive tree on x86-AMD-17h-Zen-2xEpyc-7451, root 0: bcast 1003 ns",
		"aVeryLongWordWithoutAnyPlaceToBreakItAtAll-but-then-hyphens"} {
		lines := wrapText(s, 12, 150)
		if got := strings.Join(lines, ""); strings.ReplaceAll(got, " ", "") != strings.ReplaceAll(s, " ", "") {
			t.Errorf("wrapText(%q) lost text: %q", s, lines)
		}
		for _, l := range lines {
			if textWidth(l, 12) > 150 {
				t.Errorf("wrapText(%q): line %q is %.0f px wide, over 150", s, l, textWidth(l, 12))
			}
		}
	}
}
