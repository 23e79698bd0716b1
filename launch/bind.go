package launch

import (
	"fmt"
	"slices"
)

// Binding. Like Open MPI's mpirun, which binds each rank to a core when a
// host runs no more ranks than it has cores, Run binds the ranks it starts
// on this host: local rank i runs on the first CPU of core i. A bound
// rank's Go runtime sees one CPU (GOMAXPROCS follows the affinity mask),
// so its spinning waits do not compete with its own idle threads or with
// the other ranks for the cores; on a 2-CPU machine that made windows of
// small messages over TCP about 1.5× faster. Ranks on other hosts are not
// bound.

// Bind says how Run binds the ranks it starts on this host to CPUs.
type Bind string

const (
	// BindAuto binds each local rank to a core of its own when they fit
	// (no more local ranks than cores), and leaves them unbound otherwise.
	BindAuto Bind = ""
	// BindCore binds each local rank to a core of its own, and fails the
	// job if there are more local ranks than cores.
	BindCore Bind = "core"
	// BindNone leaves the ranks on every CPU the launcher may use.
	BindNone Bind = "none"
)

// ParseBind reads a --bind-to value: core, none or auto.
func ParseBind(s string) (Bind, error) {
	switch s {
	case "auto":
		return BindAuto, nil
	case string(BindCore), string(BindNone):
		return Bind(s), nil
	}
	return "", fmt.Errorf("launch: binding %q: want core, none or auto", s)
}

func (b Bind) valid() bool { return b == BindAuto || b == BindCore || b == BindNone }

// bindCPUs chooses the CPU of each of local ranks under policy b, given
// the usable CPUs grouped by core (each group sorted, groups in order of
// their first CPU): local rank i gets the first CPU of core i. It returns
// nil when the ranks stay unbound.
func bindCPUs(b Bind, local int, cores [][]int) ([]int, error) {
	if b == BindNone || local == 0 {
		return nil, nil
	}
	if local > len(cores) {
		if b == BindCore {
			return nil, fmt.Errorf("launch: --bind-to core: %d ranks on this host but %d cores to bind them to", local, len(cores))
		}
		return nil, nil
	}
	cpus := make([]int, local)
	for i := range cpus {
		cpus[i] = cores[i][0]
	}
	return cpus, nil
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

// bind returns the CPU of each rank under policy b, -1 for ranks that
// stay unbound: those on other hosts, and all of them when binding is off
// or, under BindAuto, impossible.
func (p *placement) bind(b Bind) ([]int, error) {
	cpus := make([]int, len(p.hosts))
	var local []int
	for r, h := range p.hosts {
		cpus[r] = -1
		if h == "" {
			local = append(local, r)
		}
	}
	if b == BindNone || len(local) == 0 {
		return cpus, nil
	}
	cores, err := usableCores()
	if err != nil {
		if b == BindCore {
			return nil, err
		}
		return cpus, nil
	}
	chosen, err := bindCPUs(b, len(local), cores)
	for i, r := range local {
		if chosen != nil {
			cpus[r] = chosen[i]
		}
	}
	return cpus, err
}

// hostCPUs is how many CPUs the ranks Run starts here may share: those
// in the launcher's affinity mask; 0 when unknown.
func hostCPUs() int {
	cores, err := usableCores()
	if err != nil {
		return 0
	}
	n := 0
	for _, c := range cores {
		n += len(c)
	}
	return n
}
