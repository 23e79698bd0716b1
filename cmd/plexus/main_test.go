package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// Shipped data, relative to this package's directory (where go test runs).
const (
	dataDir   = "../../data"
	model2x10 = dataDir + "/smelt/machinedb/intel_xeon_e5_v2_2x10"
	epycXML   = dataDir + "/hwloc/x86-AMD-17h-Zen-2xEpyc-7451.xml"
)

// plexus runs the CLI in-process.
func plexus(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return o.String(), e.String(), code
}

// mustRun runs the CLI and fails the test unless it exits 0.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := plexus(t, args...)
	if code != 0 {
		t.Fatalf("plexus %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	return out
}

func wantAll(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s lacks %q:\n%s", what, sub, s)
		}
	}
}

// svgCount parses an SVG file with encoding/xml and counts elements by
// "name.class".
func svgCount(t *testing.T, path string) map[string]int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatalf("%s is not well-formed: %v", path, err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			for _, a := range se.Attr {
				if a.Name.Local == "class" {
					n[se.Name.Local+"."+a.Value]++
				}
			}
		}
	}
}

func TestMachineSmelt(t *testing.T) {
	heat := filepath.Join(t.TempDir(), "2x10.svg")
	out := mustRun(t, "machine", "--model", model2x10, "--svg", heat)
	wantAll(t, "machine output", out,
		"machine   intel_xeon_e5_v2_2x10", "source    smelt",
		"2 packages, 20 cores, 20 PUs (hardware threads), 2 NUMA nodes",
		"costs     measured (converted from cycles at 2.5 GHz)",
		"node 0 (os 0): 10 cpus 0-9", "node 1 (os 1): 10 cpus 10-19",
		"send    same node     180     23.6     25.1     44.6",
		"receive remote        200",
		"send cost (ns), row = sender", "receive cost (ns)", "wrote "+heat)
	if c := svgCount(t, heat); c["rect.cell"] != 2*20*20 {
		t.Errorf("heat map has %d cells, want %d", c["rect.cell"], 2*20*20)
	}
}

func TestMachineHwlocEstimated(t *testing.T) {
	out := mustRun(t, "machine", "--hwloc", epycXML)
	wantAll(t, "machine output", out, "96 PUs", "8 NUMA nodes", "costs     estimated from topology",
		"send    same core      96")
	if strings.Contains(out, "send cost (ns)") {
		t.Error("96-CPU matrices printed without --full")
	}
	full := mustRun(t, "machine", "--hwloc", epycXML, "--full")
	wantAll(t, "machine --full output", full, "send cost (ns)", "receive cost (ns)")
}

func TestTreeText(t *testing.T) {
	out := mustRun(t, "tree", "--model", model2x10, "--topology", "adaptive", "--op", "bcast",
		"--cpus", "0-7,16", "--root", "0", "--format", "text")
	wantAll(t, "tree text", out, "costs measured", "adaptive tree, root 0, 9 members",
		"simulated latency", "bcast", "reduce", "barrier")
	out = mustRun(t, "tree", "--model", model2x10, "--topology", "best", "--op", "reduce")
	wantAll(t, "best tree text", out, "best tree optimised for reduce", "root 13, 20 members")
}

func TestTreeFormats(t *testing.T) {
	base := []string{"tree", "--model", model2x10, "--topology", "cluster", "--cpus", "0-3,10-13"}
	js := mustRun(t, append(base, "--format", "json")...)
	tr, err := tree.ReadJSON(strings.NewReader(js))
	if err != nil {
		t.Fatalf("JSON output: %v\n%s", err, js)
	}
	if got := tr.Members(); !slices.Equal(got, []int{0, 1, 2, 3, 10, 11, 12, 13}) {
		t.Errorf("JSON tree members %v", got)
	}
	dot := mustRun(t, append(base, "--format", "dot")...)
	if !strings.HasPrefix(dot, `digraph "cluster"`) || strings.Count(dot, "->") != 7 {
		t.Errorf("dot output:\n%s", dot)
	}
	path := filepath.Join(t.TempDir(), "tree.svg")
	_, errOut, code := plexus(t, append(base, "--format", "svg", "-o", path)...)
	if code != 0 || !strings.Contains(errOut, "wrote "+path) {
		t.Fatalf("svg: exit %d, %s", code, errOut)
	}
	// CPUs 0-3 and 10-13 of the 2x10 lie on its two NUMA nodes.
	if c := svgCount(t, path); c["circle.node"]+c["circle.node root"] != 8 || c["polyline.edge"] != 7 || c["circle.legend"] != 2 {
		t.Errorf("svg tree has %d nodes, %d edges and %d NUMA nodes in the legend, want 8, 7 and 2",
			c["circle.node"]+c["circle.node root"], c["polyline.edge"], c["circle.legend"])
	}
}

func TestCompare(t *testing.T) {
	out := mustRun(t, "tree", "compare", "--model", model2x10)
	wantAll(t, "compare table", out, "20 CPUs 0-19", "root 13", "ratio", "best static", "cluster")
	for _, top := range tree.Topologies() {
		wantAll(t, "compare table", out, "\n"+strings.Repeat(" ", len("adaptive-base")-len(top.String())+2)+top.String()+" ")
	}
	var res compareJSON
	js := mustRun(t, "tree", "compare", "--model", model2x10, "--cpus", "0-4,10-14", "--root", "10", "--json")
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != len(tree.Topologies()) || len(res.CPUs) != 10 || res.CostsEstimated {
		t.Fatalf("JSON: %d rows, %d cpus, estimated %v", len(res.Rows), len(res.CPUs), res.CostsEstimated)
	}
	for _, r := range res.Rows {
		if r.Topology == "best" && r.Ratio["bcast"] > 1 {
			t.Errorf("best is %.2f× the best static tree", r.Ratio["bcast"])
		}
		if r.Topology != "best" && r.Root != 10 {
			t.Errorf("%s: root %d, want 10", r.Topology, r.Root)
		}
	}
}

func TestSweepSVG(t *testing.T) {
	plot := filepath.Join(t.TempDir(), "sweep.svg")
	out, errOut, code := plexus(t, "tree", "compare", "--model", model2x10, "--sweep", "--sizes", "2-5", "--svg", plot)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	wantAll(t, "sweep output", out, "group sizes 2-5", "bcast latency (ns)", "reduce latency (ns)",
		"barrier latency (ns)", "adaptive ratio")
	wantAll(t, "sweep progress", errOut, "100%", "done in")
	for _, op := range tree.Ops() {
		path := strings.TrimSuffix(plot, ".svg") + "-" + op.String() + ".svg"
		c := svgCount(t, path)
		pts := c["circle.point"] + c["polygon.point"]
		if want := 4 * len(tree.Topologies()); pts != want || c["line.legend"] != len(tree.Topologies()) {
			t.Errorf("%s: %d points, %d legend entries; want %d, %d", op, pts, c["line.legend"], want, len(tree.Topologies()))
		}
	}
}

func TestSweepJSON(t *testing.T) {
	js := mustRun(t, "tree", "compare", "--hwloc", epycXML, "--sizes", "2,8,96", "--json")
	var res compareJSON
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Sweep) != 3 || !res.CostsEstimated {
		t.Fatalf("%d sweep points, estimated %v", len(res.Sweep), res.CostsEstimated)
	}
	// Eight CPUs round-robin over eight nodes: one per node (§5.2).
	if got := res.Sweep[1].CPUs; !slices.Equal(got, []int{0, 6, 12, 18, 24, 30, 36, 42}) {
		t.Errorf("size 8 group %v", got)
	}
}

func TestSweepSizes(t *testing.T) {
	m := &topo.Model{Nodes: make([]topo.Node, 8)}
	for id := range 96 {
		m.CPUs = append(m.CPUs, topo.CPU{ID: id, Node: id % 8})
	}
	sizes, err := sweepSizes(m, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(sizes) < 10 || len(sizes) > 14 || sizes[0] != 2 || sizes[len(sizes)-1] != 96 || !slices.Contains(sizes, 8) {
		t.Errorf("default sizes for 96 CPUs on 8 nodes: %v", sizes)
	}
	m.CPUs = m.CPUs[:20]
	if sizes, _ := sweepSizes(m, ""); len(sizes) != 19 {
		t.Errorf("default sizes for 20 CPUs: %v, want 2..20", sizes)
	}
}

func TestFormatCPUList(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{{nil, ""}, {[]int{3}, "3"}, {[]int{5, 0, 1, 2, 7, 8}, "0-2,5,7-8"}} {
		if got := formatCPUList(c.in); got != c.want {
			t.Errorf("formatCPUList(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
