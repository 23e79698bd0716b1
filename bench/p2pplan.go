package bench

import (
	"slices"
	"strconv"
	"strings"
)

// peerRun is one job of a peer program: the same program name and
// arguments for Plexus (p2pprog -bench prog) and Open MPI (bench/peers).
type peerRun struct {
	prog  string // latency, bw, msgrate or coll
	ranks int
	args  []string
}

// peerProgs are the programs with their iteration bases (normal, quick);
// bases match the C programs' defaults.
var peerProgs = []struct {
	name        string
	base, quick int
	sized       bool // takes -s
}{
	{"latency", 1000, 20, true},
	{"bw", 100, 4, true},
	{"msgrate", 200, 20, false},
	{"coll", 1000, 20, false},
}

// peerPlan lists the jobs of c (after defaults): the point-to-point programs
// in the smallest job, coll in every one.
func peerPlan(c P2PConfig) []peerRun {
	var runs []peerRun
	smallest := slices.Min(c.Ranks)
	for _, n := range c.Ranks {
		for _, p := range peerProgs {
			if p.name != "coll" && n != smallest {
				continue
			}
			runs = append(runs, peerRun{prog: p.name, ranks: n, args: progArgs(c, p.base, p.quick, p.sized)})
		}
	}
	return runs
}

func progArgs(c P2PConfig, base, quick int, sized bool) []string {
	args := []string{"-n", strconv.Itoa(base)}
	if c.Quick {
		args = []string{"-n", strconv.Itoa(quick), "-w", "16"}
	}
	if sized {
		args = append(args, "-s", joinInts(c.Sizes))
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
