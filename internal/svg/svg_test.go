package svg

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

// census parses an SVG document with encoding/xml, failing the test if it
// is not well-formed, and counts elements by "name" and by "name.class".
func census(t *testing.T, data []byte) map[string]int {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	n := map[string]int{}
	first := true
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, head(data))
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if first && (se.Name.Local != "svg" || se.Name.Space != "http://www.w3.org/2000/svg") {
			t.Fatalf("root element is %v, want svg in the SVG namespace", se.Name)
		}
		first = false
		n[se.Name.Local]++
		for _, a := range se.Attr {
			if a.Name.Local == "class" {
				n[se.Name.Local+"."+a.Value]++
			}
		}
	}
	return n
}

func head(b []byte) string { return string(b[:min(len(b), 400)]) }

func matrix(n int) [][]float64 {
	m := make([][]float64, n)
	for i := range m {
		m[i] = make([]float64, n)
		for j := range m[i] {
			if i != j {
				m[i][j] = float64(10 + i + j)
			}
		}
	}
	return m
}

func TestHeatMap(t *testing.T) {
	var b bytes.Buffer
	h := HeatMap{Title: "send <ns> & more", Values: matrix(5), Unit: "ns", RowAxis: "sender", ColAxis: "receiver", IgnoreDiagonal: true}
	if err := WriteHeatMap(&b, h); err != nil {
		t.Fatal(err)
	}
	c := census(t, b.Bytes())
	if c["rect.cell"] != 25 || c["rect.legend"] != legendSteps {
		t.Errorf("%d cells, %d legend steps; want 25, %d", c["rect.cell"], c["rect.legend"], legendSteps)
	}
	if c["text.row-label"] != 5 || c["text.col-label"] != 5 {
		t.Errorf("%d row and %d column labels, want 5 each", c["text.row-label"], c["text.col-label"])
	}
	if c["text.legend-label"] < 2 {
		t.Errorf("%d legend labels", c["text.legend-label"])
	}
	if !strings.Contains(b.String(), "send &lt;ns&gt; &amp; more") {
		t.Error("title not escaped")
	}
}

func TestHeatMapsSideBySide(t *testing.T) {
	var b bytes.Buffer
	labels := make([]string, 100)
	for i := range labels {
		labels[i] = "c" + string(rune('a'+i%26))
	}
	send := HeatMap{Title: "send", Labels: labels, Values: matrix(100), IgnoreDiagonal: true}
	recv := HeatMap{Title: "receive", Labels: labels, Values: matrix(100)}
	if err := WriteHeatMaps(&b, "machine", send, recv); err != nil {
		t.Fatal(err)
	}
	c := census(t, b.Bytes())
	if c["rect.cell"] != 2*100*100 || c["rect.legend"] != 2*legendSteps {
		t.Errorf("%d cells, %d legend steps", c["rect.cell"], c["rect.legend"])
	}
	// Cells of 5.6 px: labels must be thinned to avoid overlap.
	if rl := c["text.row-label"]; rl >= 200 || rl < 40 {
		t.Errorf("%d row labels for two 100-row maps", rl)
	}
}

func TestHeatMapErrors(t *testing.T) {
	for name, h := range map[string]HeatMap{
		"empty":     {},
		"ragged":    {Values: [][]float64{{0, 1}, {1}}},
		"bad label": {Values: matrix(2), Labels: []string{"a"}},
	} {
		if err := WriteHeatMap(io.Discard, h); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if err := WriteHeatMaps(io.Discard, "x"); err == nil {
		t.Error("no maps: no error")
	}
	// A constant matrix must still produce finite coordinates.
	var b bytes.Buffer
	if err := WriteHeatMap(&b, HeatMap{Values: [][]float64{{3, 3}, {3, 3}}}); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); strings.Contains(s, "NaN") || strings.Contains(s, "Inf") {
		t.Error("constant matrix gave NaN or Inf coordinates")
	}
	census(t, b.Bytes())
}

func TestLinePlot(t *testing.T) {
	p := LinePlot{Title: "bcast", XLabel: "group size", YLabel: "latency (ns)"}
	for i, name := range []string{"adaptive", "binary", "sequential"} {
		s := Series{Name: name, Dashed: i == 0}
		for k := 2; k <= 20; k++ {
			s.X = append(s.X, float64(k))
			s.Y = append(s.Y, float64(k*(i+1)*10))
		}
		p.Series = append(p.Series, s)
	}
	var b bytes.Buffer
	if err := WriteLinePlot(&b, p); err != nil {
		t.Fatal(err)
	}
	c := census(t, b.Bytes())
	if pts := c["circle.point"] + c["polygon.point"]; pts != 3*19 || c["polyline"] != 3 || c["line.legend"] != 3 {
		t.Errorf("%d points, %d lines, %d legend entries; want 57, 3, 3", pts, c["polyline"], c["line.legend"])
	}
	if c["text.tick"] < 6 {
		t.Errorf("%d tick labels", c["text.tick"])
	}
	if strings.Contains(b.String(), "NaN") {
		t.Error("NaN in output")
	}
}

func TestLinePlotErrors(t *testing.T) {
	for name, p := range map[string]LinePlot{
		"no points": {Series: []Series{{Name: "a"}}},
		"ragged":    {Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1}}}},
	} {
		if err := WriteLinePlot(io.Discard, p); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// One point: degenerate x range must still draw.
	var b bytes.Buffer
	if err := WriteLinePlot(&b, LinePlot{Series: []Series{{Name: "a", X: []float64{4}, Y: []float64{0}}}}); err != nil {
		t.Fatal(err)
	}
	if c := census(t, b.Bytes()); c["circle.point"] != 1 {
		t.Errorf("%d points", c["circle.point"])
	}
}

func TestTree(t *testing.T) {
	g := TreeGraph{Title: "adaptive", Root: 13, Children: map[int][]int{
		13: {3, 10, 12}, 3: {0, 1}, 10: {}, 12: {14}, 0: {}, 1: {}, 14: {},
	}}
	var b, b2 bytes.Buffer
	if err := WriteTree(&b, g); err != nil {
		t.Fatal(err)
	}
	c := census(t, b.Bytes())
	if c["circle.node"]+c["circle.node root"] != 7 || c["polyline.edge"] != 6 || c["text.edge-label"] != 6 {
		t.Errorf("%d nodes, %d edges, %d edge labels; want 7, 6, 6",
			c["circle.node"]+c["circle.node root"], c["polyline.edge"], c["text.edge-label"])
	}
	if c["circle.node root"] != 1 || c["circle.legend-root"] != 1 {
		t.Errorf("%d roots marked, %d root legend entries; want 1, 1", c["circle.node root"], c["circle.legend-root"])
	}
	if err := WriteTree(&b2, g); err != nil || !bytes.Equal(b.Bytes(), b2.Bytes()) {
		t.Error("two drawings of the same tree differ")
	}
}

func TestLayoutTree(t *testing.T) {
	pos, leaves, depth, err := layoutTree(TreeGraph{Root: 0, Children: map[int][]int{0: {1, 2}, 1: {3, 4}}})
	if err != nil {
		t.Fatal(err)
	}
	if leaves != 3 || depth != 2 {
		t.Errorf("%d leaves, depth %d; want 3, 2", leaves, depth)
	}
	// Leaves 3, 4, 2 in send order; 1 above 3 and 4; root midway 1..2.
	want := map[int][2]float64{3: {0, 2}, 4: {1, 2}, 2: {2, 1}, 1: {0.5, 1}, 0: {1.25, 0}}
	for u, p := range want {
		if pos[u] != p {
			t.Errorf("node %d at %v, want %v", u, pos[u], p)
		}
	}
	for name, ch := range map[string]map[int][]int{
		"cycle":   {0: {1}, 1: {0}},
		"twice":   {0: {1, 2}, 1: {2}},
		"selfish": {0: {0}},
	} {
		if err := WriteTree(io.Discard, TreeGraph{Root: 0, Children: ch}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestNiceTicks(t *testing.T) {
	got := niceTicks(2, 20, 10)
	if len(got) != 10 || got[0] != 2 || got[9] != 20 {
		t.Errorf("niceTicks(2, 20) = %v", got)
	}
	if got := niceTicks(0, 2385, 6); got[1] != 500 {
		t.Errorf("niceTicks(0, 2385) = %v", got)
	}
	if got := colourAt(0); got != "#440154" {
		t.Errorf("colourAt(0) = %s", got)
	}
	if got := colourAt(1); got != "#fde725" {
		t.Errorf("colourAt(1) = %s", got)
	}
}
