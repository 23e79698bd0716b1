package topo

import (
	"fmt"
	"math"
	"slices"
)

// Validate checks that the model is internally consistent: unique CPU ids,
// node references in range, square matrices of the right size with finite,
// non-negative entries, and cost matrices (Send, Recv and Latency) with
// zeros on the diagonal (a CPU does not message itself); Latency only
// together with Send and Recv. It returns an error wrapping ErrInvalid that
// says what is wrong, or one wrapping ErrTooLarge when the model is past
// MaxCPUs, MaxCostCPUs, MaxNodes or MaxCPUID.
func (m *Model) Validate() error {
	if len(m.CPUs) == 0 {
		return invalid("no CPUs")
	}
	if err := m.checkSize(); err != nil {
		return err
	}
	if err := m.validateCPUs(); err != nil {
		return err
	}
	if m.Distance != nil {
		if err := checkSquare("numa_distance", m.Distance, len(m.Nodes)); err != nil {
			return err
		}
	}
	if (m.Send == nil) != (m.Recv == nil) {
		return invalid("send and recv costs must both be present or both absent")
	}
	if m.Latency != nil && m.Send == nil {
		return invalid("latency needs send and recv costs, which the model lacks")
	}
	for _, c := range []struct {
		name string
		c    *Costs
	}{{"send", m.Send}, {"recv", m.Recv}, {"latency", m.Latency}} {
		if c.c == nil {
			continue
		}
		if err := checkCosts(c.name+".mean", c.c.Mean, len(m.CPUs)); err != nil {
			return err
		}
		if c.c.SD != nil {
			if err := checkCosts(c.name+".sd", c.c.SD, len(m.CPUs)); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkSize applies the limits, before anything walks the model.
func (m *Model) checkSize() error {
	if err := CheckCPUs(len(m.CPUs), m.Send != nil || m.Recv != nil || m.Latency != nil); err != nil {
		return err
	}
	if len(m.Nodes) > MaxNodes {
		return fmt.Errorf("%w: %d NUMA nodes, more than topo.MaxNodes = %d", ErrTooLarge, len(m.Nodes), MaxNodes)
	}
	return nil
}

// checkCosts is checkSquare with zeros required on the diagonal.
func checkCosts(name string, a [][]float64, n int) error {
	if err := checkSquare(name, a, n); err != nil {
		return err
	}
	for i := range a {
		if a[i][i] != 0 {
			return invalid("%s[%d][%d] = %v, want 0 on the diagonal", name, i, i, a[i][i])
		}
		if j := slices.IndexFunc(a[i], func(v float64) bool { return v > MaxCost }); j >= 0 {
			return fmt.Errorf("%w: %s[%d][%d] = %g, more than topo.MaxCost = %g", ErrTooLarge, name, i, j, a[i][j], float64(MaxCost))
		}
	}
	return nil
}

func (m *Model) validateCPUs() error {
	seen := map[int]bool{}
	for i, c := range m.CPUs {
		if seen[c.ID] {
			return invalid("cpu %d listed twice", c.ID)
		}
		seen[c.ID] = true
		if c.ID < 0 {
			return invalid("cpu[%d] has negative id %d", i, c.ID)
		}
		if c.ID > MaxCPUID {
			return fmt.Errorf("%w: cpu[%d] has id %d, more than topo.MaxCPUID = %d", ErrTooLarge, i, c.ID, MaxCPUID)
		}
		if c.Node < 0 || c.Node >= len(m.Nodes) {
			return invalid("cpu %d: node %d out of range (model has %d nodes)", c.ID, c.Node, len(m.Nodes))
		}
	}
	return nil
}

func checkSquare(name string, a [][]float64, n int) error {
	if len(a) != n {
		return invalid("%s has %d rows, want %d", name, len(a), n)
	}
	for i, row := range a {
		if len(row) != n {
			return invalid("%s row %d has %d entries, want %d", name, i, len(row), n)
		}
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return invalid("%s[%d][%d] = %v is not a finite non-negative number", name, i, j, v)
			}
		}
	}
	return nil
}
