package launch

import (
	"fmt"
	"slices"
)

// Binding. Open MPI's mpirun binds each rank to a core when a host runs no
// more ranks than it has cores; Run binds the ranks it starts on this host
// too, but, since a Go program runs goroutines on several threads, by
// default to an equal share of the cores rather than to one: local rank i
// gets the i-th of local equal runs of whole cores (the first ranks one
// core more when they do not divide evenly), with all the CPUs (hardware
// threads) of those cores. A bound rank's Go runtime sizes GOMAXPROCS to
// its share, so its spinning waits do not compete with its own idle
// threads or with the other ranks for the cores, which on a small machine
// made windows of small messages markedly faster (docs/benchmarks.md,
// "Binding" in section "Bound ranks, allocation-free windows", 2026-11-22).
// Ranks on other hosts are not bound.

// Bind says how Run binds the ranks it starts on this host to CPUs.
type Bind string

const (
	// BindAuto binds as BindShare when the local ranks fit (no more than
	// cores), and leaves them unbound otherwise.
	BindAuto Bind = ""
	// BindShare gives each local rank an equal share of whole cores of its
	// own, and fails the job if there are more local ranks than cores.
	BindShare Bind = "share"
	// BindCore binds each local rank to one core of its own (all its
	// hardware threads), as mpirun's --bind-to core, and fails the job if
	// there are more local ranks than cores.
	BindCore Bind = "core"
	// BindNone leaves the ranks on every CPU the launcher may use.
	BindNone Bind = "none"
)

// ParseBind reads a --bind-to value: share, core, none or auto.
func ParseBind(s string) (Bind, error) {
	switch s {
	case "auto":
		return BindAuto, nil
	case string(BindShare), string(BindCore), string(BindNone):
		return Bind(s), nil
	}
	return "", fmt.Errorf("launch: binding %q: want share, core, none or auto", s)
}

func (b Bind) valid() bool {
	return b == BindAuto || b == BindShare || b == BindCore || b == BindNone
}

// bindCPUs chooses the CPUs of each of local ranks under policy b, given
// the usable CPUs grouped by core (each group sorted, groups in order of
// their first CPU). It returns nil when the ranks stay unbound.
func bindCPUs(b Bind, local int, cores [][]int) ([][]int, error) {
	if b == BindNone || local == 0 {
		return nil, nil
	}
	if local > len(cores) {
		if b == BindAuto {
			return nil, nil
		}
		return nil, fmt.Errorf("launch: --bind-to %s: %d ranks on this host but %d cores to bind them to", b, local, len(cores))
	}
	cpus := make([][]int, local)
	for i := range cpus {
		start, n := i, 1
		if b != BindCore {
			start, n = EqualRun(len(cores), local, i)
		}
		cpus[i] = slices.Concat(cores[start : start+n]...)
	}
	return cpus, nil
}

// EqualRun returns the start and length of part i of n items cut into
// parts equal runs in order, the first parts one item longer where they
// do not divide evenly: how Run shares a host's cores among its ranks,
// and comm a machine's CPUs among the hosts that share it. parts must be
// positive and i in [0, parts): EqualRun panics otherwise, since no
// answer would be right.
func EqualRun(n, parts, i int) (start, size int) {
	if parts < 1 || i < 0 || i >= parts {
		panic(fmt.Sprintf("launch: EqualRun: part %d of %d", i, parts))
	}
	per, extra := n/parts, n%parts
	start, size = i*per+min(i, extra), per
	if i < extra {
		size++
	}
	return start, size
}

// groupCores groups cpus by core: coreOf gives a CPU's core key (package
// and core id), or ok false if unknown, which makes the CPU a core of its
// own. Groups keep the order of cpus, which must be increasing.
func groupCores(cpus []int, coreOf func(cpu int) (key string, ok bool)) [][]int {
	var cores [][]int
	index := map[string]int{}
	for _, c := range cpus {
		key, ok := coreOf(c)
		if i, seen := index[key]; ok && seen {
			cores[i] = append(cores[i], c)
			continue
		}
		if ok {
			index[key] = len(cores)
		}
		cores = append(cores, []int{c})
	}
	for _, g := range cores {
		slices.Sort(g)
	}
	return cores
}

// bind returns the CPUs of each rank under policy b, given this host's
// usable cores (or why they are unknown), nil for ranks that stay
// unbound: those on other hosts, and all of them when binding is off or,
// under BindAuto, impossible.
func (p *placement) bind(b Bind, cores [][]int, coresErr error) ([][]int, error) {
	cpus := make([][]int, len(p.hosts))
	var local []int
	for r, h := range p.hosts {
		if h == "" {
			local = append(local, r)
		}
	}
	if b == BindNone || len(local) == 0 {
		return cpus, nil
	}
	if coresErr != nil {
		if b == BindAuto {
			return cpus, nil
		}
		return nil, coresErr
	}
	chosen, err := bindCPUs(b, len(local), cores)
	for i, r := range local {
		if chosen != nil {
			cpus[r] = chosen[i]
		}
	}
	return cpus, err
}

// countCPUs is how many CPUs the cores have: what the ranks Run starts
// here may share.
func countCPUs(cores [][]int) int {
	n := 0
	for _, c := range cores {
		n += len(c)
	}
	return n
}
