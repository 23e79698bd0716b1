package topo_test

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/topo/smelt"
)

const sample2x10 = "../data/smelt/machinedb/intel_xeon_e5_v2_2x10"

// classMeans returns the mean cost over same-node and cross-node pairs.
func classMeans(m *topo.Model, c [][]float64) (local, remote float64) {
	var nl, nr float64
	for i := range c {
		for j, v := range c[i] {
			switch {
			case i == j:
			case m.SameNode(i, j):
				local, nl = local+v, nl+1
			default:
				remote, nr = remote+v, nr+1
			}
		}
	}
	return local / nl, remote / nr
}

func load2x10(t *testing.T) *topo.Model {
	t.Helper()
	m, err := smelt.ReadMachineDB(sample2x10, smelt.Options{FreqGHz: 2.5})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func within(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// TestDefaultEstimateFitted keeps DefaultEstimate tied to the data it was
// fitted to.
func TestDefaultEstimateFitted(t *testing.T) {
	m := load2x10(t)
	sl, sr := classMeans(m, m.Send.Mean)
	rl, rr := classMeans(m, m.Recv.Mean)
	d := topo.DefaultEstimate()
	for _, c := range []struct {
		name        string
		def, fitted float64
	}{
		{"SendLocal", d.SendLocal, sl}, {"SendRemote", d.SendRemote, sr},
		{"RecvLocal", d.RecvLocal, rl}, {"RecvRemote", d.RecvRemote, rr},
	} {
		t.Logf("%s: default %.2f ns, fitted %.3f ns", c.name, c.def, c.fitted)
		if !within(c.def, c.fitted, 0.02) {
			t.Errorf("%s = %v ns, fitted %v ns: more than 2%% apart", c.name, c.def, c.fitted)
		}
	}
	if err := d.Validate(); err != nil {
		t.Error(err)
	}
}

// TestEstimateVs2x10 estimates the 2x10 machine from its topology alone and
// compares with the measurements: class means within 2%, and 90% of pairs
// within 15% of their measured value (the measured cross-node pairs spread
// by about ±10% around their mean, a constant estimate cannot do better).
func TestEstimateVs2x10(t *testing.T) {
	meas := load2x10(t)
	est := load2x10(t)
	est.Send, est.Recv = nil, nil
	if err := topo.Estimate(est, topo.DefaultEstimate()); err != nil {
		t.Fatal(err)
	}
	if !est.Provenance.CostsEstimated || est.Send.SD != nil {
		t.Error("CostsEstimated not set or SD present")
	}
	for _, c := range []struct {
		name      string
		meas, est [][]float64
	}{{"send", meas.Send.Mean, est.Send.Mean}, {"recv", meas.Recv.Mean, est.Recv.Mean}} {
		ml, mr := classMeans(meas, c.meas)
		el, er := classMeans(est, c.est)
		if !within(el, ml, 0.02) || !within(er, mr, 0.02) {
			t.Errorf("%s: estimated local/remote %.1f/%.1f ns, measured %.1f/%.1f", c.name, el, er, ml, mr)
		}
		if p90 := relErrP90(c.meas, c.est); p90 > 0.15 {
			t.Errorf("%s: 90th percentile relative error %.3f > 0.15", c.name, p90)
		}
	}
}

func relErrP90(meas, est [][]float64) float64 {
	var errs []float64
	for i := range meas {
		for j := range meas[i] {
			if i != j {
				errs = append(errs, math.Abs(est[i][j]-meas[i][j])/meas[i][j])
			}
		}
	}
	sort.Float64s(errs)
	return errs[len(errs)*9/10]
}

// smtModel has nodes of 2 cores × 2 threads; CPU 4k..4k+3 are on node k,
// 2c and 2c+1 share core c.
func smtModel(nodes int, dist [][]float64) *topo.Model {
	m := &topo.Model{Name: "smt", Distance: dist}
	for k := 0; k < nodes; k++ {
		m.Nodes = append(m.Nodes, topo.Node{OSIndex: k})
		for t := 0; t < 4; t++ {
			id := 4*k + t
			m.CPUs = append(m.CPUs, topo.CPU{ID: id, Package: k, Core: id / 2, Node: k, L2: id / 2, L3: k})
		}
	}
	return m
}

func TestEstimateOrdering(t *testing.T) {
	m := smtModel(2, nil)
	if err := topo.Estimate(m, topo.DefaultEstimate()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*topo.Costs{m.Send, m.Recv} {
		sib, local, remote := c.Mean[0][1], c.Mean[0][2], c.Mean[0][4]
		if !(0 < sib && sib < local && local < remote) {
			t.Errorf("want 0 < sibling %v < local %v < remote %v", sib, local, remote)
		}
		if c.Mean[1][1] != 0 || c.Mean[5][0] != remote {
			t.Errorf("diagonal %v, [5][0] %v", c.Mean[1][1], c.Mean[5][0])
		}
	}
	d := topo.DefaultEstimate()
	if m.Recv.Mean[0][4] != d.RecvRemote || m.Send.Mean[0][1] != d.SMTFactor*d.SendLocal {
		t.Errorf("nil Distance: remote %v want %v", m.Recv.Mean[0][4], d.RecvRemote)
	}
}

func TestEstimateDistanceScaling(t *testing.T) {
	dist := [][]float64{
		{10, 12, 21, 32},
		{12, 10, 16, 21},
		{21, 16, 10, 12},
		{32, 21, 12, 10},
	}
	m := smtModel(4, dist)
	if err := topo.Estimate(m, topo.DefaultEstimate()); err != nil {
		t.Fatal(err)
	}
	// From CPU 0 (node 0) to nodes 1, 2, 3 at distances 12, 21, 32.
	s, r := m.Send.Mean[0], m.Recv.Mean[0]
	d := topo.DefaultEstimate()
	if !(d.SendLocal < s[4] && s[4] < s[8] && s[8] < s[12]) || !(r[2] < r[4] && r[4] < r[8] && r[8] < r[12]) {
		t.Errorf("not monotone in distance: send %v recv %v", s, r)
	}
	if s[8] != d.SendRemote || r[8] != d.RecvRemote {
		t.Errorf("at the reference distance: send %v recv %v", s[8], r[8])
	}
	want := d.RecvLocal + (d.RecvRemote-d.RecvLocal)*22/11
	if !within(r[12], want, 1e-12) {
		t.Errorf("distance 32: recv %v, want %v", r[12], want)
	}
}

func TestEstimateErrors(t *testing.T) {
	bad := []func(*topo.EstimateParams){
		func(p *topo.EstimateParams) { p.SendLocal = 0 },
		func(p *topo.EstimateParams) { p.RecvRemote = math.NaN() },
		func(p *topo.EstimateParams) { p.SendRemote = p.SendLocal / 2 },
		func(p *topo.EstimateParams) { p.SMTFactor = 1.5 },
		func(p *topo.EstimateParams) { p.RefDistance = 10 },
	}
	for i, f := range bad {
		p := topo.DefaultEstimate()
		f(&p)
		if err := p.Validate(); err == nil {
			t.Errorf("case %d: %+v validated", i, p)
		}
		if err := topo.Estimate(smtModel(1, nil), p); err == nil {
			t.Errorf("case %d: Estimate accepted %+v", i, p)
		}
	}
	if err := topo.Estimate(load2x10(t), topo.DefaultEstimate()); !errors.Is(err, topo.ErrMeasured) {
		t.Errorf("measured model: err = %v", err)
	}
	m := smtModel(1, nil)
	for range 2 { // re-estimating replaces earlier estimates
		if err := topo.Estimate(m, topo.DefaultEstimate()); err != nil {
			t.Fatal(err)
		}
	}
	if err := topo.Estimate(&topo.Model{}, topo.DefaultEstimate()); !errors.Is(err, topo.ErrInvalid) {
		t.Errorf("empty model: err = %v", err)
	}
}

func ExampleEstimate() {
	m := &topo.Model{Name: "2x2", Nodes: []topo.Node{{OSIndex: 0}, {OSIndex: 1}}}
	for id := 0; id < 4; id++ {
		m.CPUs = append(m.CPUs, topo.CPU{ID: id, Package: id / 2, Core: id, Node: id / 2, L2: id, L3: id / 2})
	}
	if err := topo.Estimate(m, topo.DefaultEstimate()); err != nil {
		panic(err)
	}
	fmt.Printf("send local %.1f ns, remote %.1f ns\n", m.Send.Mean[0][1], m.Send.Mean[0][2])
	fmt.Printf("recv local %.1f ns, remote %.1f ns\n", m.Recv.Mean[0][1], m.Recv.Mean[0][2])
	// Output:
	// send local 25.1 ns, remote 78.5 ns
	// recv local 89.2 ns, remote 278.6 ns
}
