package topo

import (
	"errors"
	"fmt"
	"math"
)

// EstimateParams are the per-message costs, in nanoseconds, from which
// Estimate builds Send and Recv for a machine that has a topology but no
// measurements.
//
// Every ordered pair of distinct CPUs i, j falls into one class:
//
//   - SMT siblings (same Core): SMTFactor × the local cost;
//   - local (same NUMA node, which on the machines we know also means the
//     same L3): SendLocal / RecvLocal;
//   - remote (different nodes): local + (remote − local) × (d − 10) /
//     (RefDistance − 10), where d is the NUMA distance of the two nodes
//     (Model.NodeDistance) or RefDistance when Model.Distance is nil. So a
//     node pair at the reference distance costs exactly SendRemote /
//     RecvRemote, farther nodes more, nearer ones less, and never less than
//     local.
type EstimateParams struct {
	SendLocal, SendRemote float64
	RecvLocal, RecvRemote float64
	// SMTFactor scales the local costs for SMT siblings; in (0, 1].
	SMTFactor float64
	// RefDistance is the NUMA distance at which the remote costs were
	// measured; > 10.
	RefDistance float64
}

// DefaultEstimate returns the parameters fitted to the only public Smelt
// pairwise model, the 2-socket Intel Xeon E5-2670 v2 (Ivy Bridge-EP, 2×10
// cores, 2.5 GHz) in data/smelt/machinedb/intel_xeon_e5_v2_2x10: each cost
// is the mean over the 180 same-node or 200 cross-node ordered pairs of
// the pairwise-nsend_send / pairwise-nsend_receive files, converted from
// TSC cycles at 2.5 GHz (send 62.7 / 196.3 cycles, receive 223.0 / 696.5
// cycles). TestDefaultEstimateFitted recomputes the fit from the data and
// fails if any constant drifts more than 2% from it.
//
// SMTFactor is a guess: the 2×10 machine has no SMT, so there is no
// measurement to fit. 0.6 models siblings as cheaper than cores sharing only
// the L3 (they share L1 and L2); the Barrelfish "tomme" matrices
// (Nehalem, 2 threads per core) show siblings far cheaper still, but were
// measured with another benchmark.
//
// RefDistance 21 is the ACPI SLIT remote distance firmware reports on
// typical 2-socket Intel machines, which the fitted machine is.
func DefaultEstimate() EstimateParams {
	return EstimateParams{
		SendLocal:   25.1,
		SendRemote:  78.5,
		RecvLocal:   89.2,
		RecvRemote:  278.6,
		SMTFactor:   0.6,
		RefDistance: 21,
	}
}

// Validate checks that the parameters are finite, positive and ordered:
// local ≤ remote, 0 < SMTFactor ≤ 1, RefDistance > 10.
func (p EstimateParams) Validate() error {
	for _, v := range []struct {
		name string
		v    float64
	}{
		{"SendLocal", p.SendLocal}, {"SendRemote", p.SendRemote},
		{"RecvLocal", p.RecvLocal}, {"RecvRemote", p.RecvRemote},
		{"SMTFactor", p.SMTFactor}, {"RefDistance", p.RefDistance},
	} {
		if math.IsNaN(v.v) || math.IsInf(v.v, 0) || v.v <= 0 {
			return fmt.Errorf("topo: estimate: %s = %v, want a finite positive number", v.name, v.v)
		}
	}
	switch {
	case p.SendLocal > p.SendRemote:
		return fmt.Errorf("topo: estimate: SendLocal %v > SendRemote %v", p.SendLocal, p.SendRemote)
	case p.RecvLocal > p.RecvRemote:
		return fmt.Errorf("topo: estimate: RecvLocal %v > RecvRemote %v", p.RecvLocal, p.RecvRemote)
	case p.SMTFactor > 1:
		return fmt.Errorf("topo: estimate: SMTFactor %v > 1", p.SMTFactor)
	case p.RefDistance <= 10:
		return fmt.Errorf("topo: estimate: RefDistance %v <= 10", p.RefDistance)
	}
	return nil
}

// ErrMeasured is returned by Estimate for a model whose costs were
// measured; clear Send and Recv first to replace them.
var ErrMeasured = errors.New("topo: estimate: model already has measured costs")

// Estimate fills m.Send and m.Recv (without SD) from m's topology and p,
// and sets Provenance.CostsEstimated. Costs from an earlier Estimate are
// replaced; measured ones are not (ErrMeasured). A model of more than
// MaxCostCPUs CPUs gets an error wrapping ErrTooLarge.
func Estimate(m *Model, p EstimateParams) error {
	if m == nil {
		return fmt.Errorf("%w: no model (nil)", ErrInvalid)
	}
	if err := p.Validate(); err != nil {
		return err
	}
	if m.HasCosts() && !m.Provenance.CostsEstimated {
		return ErrMeasured
	}
	topoOnly := *m
	topoOnly.Send, topoOnly.Recv = nil, nil
	if err := topoOnly.Validate(); err != nil {
		return fmt.Errorf("topo: estimate: %w", err)
	}
	n := m.N()
	if err := CheckCPUs(n, true); err != nil {
		return fmt.Errorf("topo: estimate: %w", err)
	}
	send, recv := NewCosts(n, false), NewCosts(n, false)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i != j {
				f := m.estimateFraction(i, j, p)
				send.Mean[i][j] = classCost(p.SendLocal, p.SendRemote, f, p.SMTFactor)
				recv.Mean[i][j] = classCost(p.RecvLocal, p.RecvRemote, f, p.SMTFactor)
			}
		}
	}
	m.Send, m.Recv = send, recv
	m.Provenance.CostsEstimated = true
	return nil
}

// estimateFraction returns -1 for SMT siblings, else how far the pair is
// from local (0) towards remote at the reference distance (1).
func (m *Model) estimateFraction(i, j int, p EstimateParams) float64 {
	switch {
	case m.CPUs[i].Core == m.CPUs[j].Core:
		return -1
	case m.SameNode(i, j):
		return 0
	case m.Distance == nil:
		return 1
	}
	return max(0, (m.NodeDistance(i, j)-10)/(p.RefDistance-10))
}

func classCost(local, remote, frac, smt float64) float64 {
	if frac < 0 {
		return smt * local
	}
	return local + (remote-local)*frac
}
