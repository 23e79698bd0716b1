package bench

import (
	"slices"
	"strconv"
	"strings"
)

// peerRun is one job of a peer program: the same program name and
// arguments for Plexus (the rank program's -bench prog) and Open MPI (bench/peers).
type peerRun struct {
	prog       string // a peerProgs name
	ranks      int
	args       []string
	plexusOnly bool // Open MPI has no such program
}

// peerProg is a peer program with its iteration bases (normal, quick).
type peerProg struct {
	name        string
	base, quick int
	sized       bool // takes -s
	mt          bool // multi-goroutine: takes -g, Plexus only
}

// peerProgs are the programs in the order they run; the bases of the first
// four match the C programs' defaults.
var peerProgs = []peerProg{
	{name: "latency", base: 10000, quick: 20, sized: true},
	{name: "bw", base: 100, quick: 4, sized: true},
	{name: "msgrate", base: 1000, quick: 20},
	{name: "coll", base: 10000, quick: 20},
	{name: "latency_mt", base: 1000, quick: 20, mt: true},
	{name: "msgrate_mt", base: 2000, quick: 20, mt: true},
}

func progNames() []string {
	names := make([]string, len(peerProgs))
	for i, p := range peerProgs {
		names[i] = p.name
	}
	return names
}

// peerPlan lists the jobs of c (after defaults): the point-to-point programs
// in the smallest job, coll in every one; the multi-goroutine ones only
// with c.Goroutines; only c.Cases when given.
func peerPlan(c P2PConfig) []peerRun {
	var runs []peerRun
	smallest := slices.Min(c.Ranks)
	for _, n := range c.Ranks {
		for _, p := range peerProgs {
			if !c.plans(p) || p.name != "coll" && n != smallest {
				continue
			}
			runs = append(runs, peerRun{prog: p.name, ranks: n, args: progArgs(c, p), plexusOnly: p.mt})
		}
	}
	return runs
}

// mpiProgs lists the Open MPI programs c's plan runs.
func mpiProgs(c P2PConfig) []string {
	var progs []string
	for _, r := range peerPlan(c) {
		if !r.plexusOnly && !slices.Contains(progs, r.prog) {
			progs = append(progs, r.prog)
		}
	}
	return progs
}

// plans reports whether c runs p.
func (c P2PConfig) plans(p peerProg) bool {
	if p.mt && len(c.Goroutines) == 0 {
		return false
	}
	return len(c.Cases) == 0 || slices.Contains(c.Cases, p.name)
}

func progArgs(c P2PConfig, p peerProg) []string {
	args := []string{"-n", strconv.Itoa(p.base)}
	if c.Quick {
		args = []string{"-n", strconv.Itoa(p.quick), "-w", "16"}
	}
	if p.sized {
		args = append(args, "-s", joinInts(c.Sizes))
	}
	if p.mt {
		args = append(args, "-g", joinInts(c.Goroutines))
	}
	return args
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}
