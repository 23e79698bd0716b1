package topo

import (
	"errors"
	"testing"
)

func TestTwoClass(t *testing.T) {
	m, err := TwoClass(2, 3, 25, 90, 80, 280)
	if err != nil {
		t.Fatal(err)
	}
	if p, c, n := m.Counts(); p != 2 || c != 6 || n != 2 || m.N() != 6 {
		t.Fatalf("counts %d %d %d, %d cpus", p, c, n, m.N())
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		i, j       int
		send, recv float64
	}{{0, 2, 25, 90}, {0, 3, 80, 280}, {5, 4, 25, 90}, {4, 1, 80, 280}, {1, 1, 0, 0}} {
		if m.Send.Mean[c.i][c.j] != c.send || m.Recv.Mean[c.i][c.j] != c.recv {
			t.Errorf("%d→%d: send %v recv %v, want %v %v", c.i, c.j, m.Send.Mean[c.i][c.j], m.Recv.Mean[c.i][c.j], c.send, c.recv)
		}
	}
	if _, err := Uniform(0, 4); !errors.Is(err, ErrInvalid) {
		t.Errorf("Uniform(0, 4): %v", err)
	}
	if _, err := TwoClass(1, 2, 90, 25, 80, 280); err == nil {
		t.Error("send local above remote accepted")
	}
}

// TestUniformLimits: a machine past MaxNodes or MaxCPUs is refused before
// anything is allocated, even where nodes × perNode overflows an int.
func TestUniformLimits(t *testing.T) {
	for _, c := range [][2]int{{1, MaxCPUs + 1}, {MaxNodes + 1, 1}, {1 << 30, 1 << 30}, {4, 1 << 62}} {
		if _, err := Uniform(c[0], c[1]); !errors.Is(err, ErrTooLarge) {
			t.Errorf("Uniform(%d, %d): %v, want ErrTooLarge", c[0], c[1], err)
		}
	}
	if m, err := Uniform(1, MaxCPUs); err != nil || m.Validate() != nil {
		t.Errorf("Uniform(1, MaxCPUs): %v", err)
	}
	if err := Estimate(nil, DefaultEstimate()); !errors.Is(err, ErrInvalid) {
		t.Errorf("Estimate(nil): %v, want ErrInvalid", err)
	}
}
