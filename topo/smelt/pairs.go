package smelt

import (
	"bufio"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/plexus-hpc/plexus/topo"
)

// Options control the import.
type Options struct {
	// FreqGHz is the clock used to convert cycles to nanoseconds. When 0
	// the importer takes it from the machine data (ReadMachineDB) or from
	// the table of known machines (ReadBarrelfish).
	FreqGHz float64
}

// Cycles converts a cost in nanoseconds back to cycles at freqGHz, the
// inverse of the import conversion: Cycles(m.Send.Mean[i][j],
// m.Provenance.FreqGHz) is the number found in the source file.
func Cycles(ns, freqGHz float64) float64 { return ns * freqGHz }

// pairSyntax says how a pair file treats src==dst rows.
type pairSyntax struct {
	// diagMinusOne accepts src==dst rows whose cost is -1 (Barrelfish);
	// otherwise a src==dst row is an error.
	diagMinusOne bool
}

// IncompleteError reports a pair file that lacks some ordered pairs.
type IncompleteError struct {
	File       string
	Have, Want int
	// MissingSrc and MissingDst are the OS ids of the first missing pair.
	MissingSrc, MissingDst int
}

func (e *IncompleteError) Error() string {
	return fmt.Sprintf("smelt: %s: incomplete: %d of %d pairs (first missing %d -> %d)",
		e.File, e.Have, e.Want, e.MissingSrc, e.MissingDst)
}

// readPairs parses a pairwise cost file ("src dst mean sd" per line, '#'
// comments, any order) into cycle matrices indexed by position in ids.
// Every ordered pair of distinct CPUs must appear exactly once.
func readPairs(path string, ids []int, syn pairSyntax) (*topo.Costs, error) {
	if err := topo.CheckCPUs(len(ids), true); err != nil {
		return nil, fmt.Errorf("smelt: %s: %w", path, err)
	}
	f, err := topo.OpenFile(path, topo.MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("smelt: %w", err)
	}
	defer f.Close()
	index := make(map[int]int, len(ids))
	for i, id := range ids {
		index[id] = i
	}
	n := len(ids)
	c := topo.NewCosts(n, true)
	lineOf := make([]int, n*n)
	have := 0
	sc := bufio.NewScanner(f)
	for ln := 1; sc.Scan(); ln++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		r, err := parseRow(text, index, syn)
		if err != nil {
			return nil, fmt.Errorf("smelt: %s:%d: %w", path, ln, err)
		}
		if r.diag {
			continue
		}
		cell := r.i*n + r.j
		if prev := lineOf[cell]; prev != 0 {
			return nil, fmt.Errorf("smelt: %s:%d: duplicate pair %d -> %d (first on line %d)",
				path, ln, ids[r.i], ids[r.j], prev)
		}
		lineOf[cell] = ln
		c.Mean[r.i][r.j], c.SD[r.i][r.j] = r.mean, r.sd
		have++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("smelt: %s: %w", path, err)
	}
	if want := n*n - n; have != want {
		e := &IncompleteError{File: path, Have: have, Want: want}
		e.MissingSrc, e.MissingDst = firstMissing(lineOf, ids)
		return nil, e
	}
	return c, nil
}

type row struct {
	i, j     int
	mean, sd float64
	diag     bool
}

func parseRow(text string, index map[int]int, syn pairSyntax) (row, error) {
	fs := strings.Fields(text)
	if len(fs) != 4 {
		return row{}, fmt.Errorf("want 4 fields \"src dst mean sd\", have %d", len(fs))
	}
	var r row
	var ok bool
	src, err1 := strconv.Atoi(fs[0])
	dst, err2 := strconv.Atoi(fs[1])
	if err1 != nil || err2 != nil {
		return r, fmt.Errorf("bad CPU number in %q", text)
	}
	if r.i, ok = index[src]; !ok {
		return r, fmt.Errorf("CPU %d is not in the machine's CPU list", src)
	}
	if r.j, ok = index[dst]; !ok {
		return r, fmt.Errorf("CPU %d is not in the machine's CPU list", dst)
	}
	if src == dst {
		if v, err := strconv.ParseFloat(fs[2], 64); err == nil && v == -1 && syn.diagMinusOne {
			return row{diag: true}, nil
		}
		return r, fmt.Errorf("pair %d -> %d: src equals dst", src, dst)
	}
	if r.mean, err1 = parseCost(fs[2]); err1 != nil {
		return r, fmt.Errorf("mean: %w", err1)
	}
	if r.sd, err2 = parseCost(fs[3]); err2 != nil {
		return r, fmt.Errorf("sd: %w", err2)
	}
	return r, nil
}

// parseCost parses a finite, non-negative number.
func parseCost(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("%q is not a finite non-negative number", s)
	}
	return v, nil
}

func firstMissing(lineOf []int, ids []int) (src, dst int) {
	n := len(ids)
	for cell, ln := range lineOf {
		i, j := cell/n, cell%n
		if ln == 0 && i != j {
			return ids[i], ids[j]
		}
	}
	return -1, -1
}

// toNanos divides every entry of c (in cycles) by ghz in place.
func toNanos(c *topo.Costs, ghz float64) {
	for _, m := range [][][]float64{c.Mean, c.SD} {
		for _, r := range m {
			for j := range r {
				r[j] /= ghz
			}
		}
	}
}
