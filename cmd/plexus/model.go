package main

import (
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/topo/hwloc"
	"github.com/plexus-hpc/plexus/topo/load"
	"github.com/plexus-hpc/plexus/topo/sysfs"
)

// modelFlags select the machine model, the same way for every command.
type modelFlags struct {
	hwloc, model string
}

func (f *modelFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.hwloc, "hwloc", "", "read the machine from hwloc XML `FILE` (costs estimated)")
	fs.StringVar(&f.model, "model", "", "read the machine from `DIR|FILE`: model JSON, Smelt machinedb dir, Barrelfish matrix, hwloc XML")
}

// load returns the selected model with costs: estimated when the source
// has none, so that every command can build and simulate trees.
func (f *modelFlags) load() (*topo.Model, error) {
	var m *topo.Model
	var err error
	switch {
	case f.hwloc != "" && f.model != "":
		return nil, usagef("--hwloc and --model are alternatives; give one")
	case f.hwloc != "":
		m, err = hwloc.ReadFile(f.hwloc, hwloc.Options{})
	case f.model != "":
		m, err = load.Open(f.model)
	default:
		m, err = sysfs.Local()
	}
	if err != nil {
		return nil, err
	}
	return m, withCosts(m)
}

func withCosts(m *topo.Model) error {
	if m.HasCosts() {
		return nil
	}
	if err := topo.Estimate(m, topo.DefaultEstimate()); err != nil {
		return fmt.Errorf("estimating costs for %s: %w", m.Name, err)
	}
	return nil
}

// costNote says where the costs came from, for every command's header.
func costNote(m *topo.Model) string {
	if m.Provenance.CostsEstimated {
		return "costs estimated from topology (topo.DefaultEstimate())"
	}
	if f := m.Provenance.FreqGHz; f > 0 {
		return fmt.Sprintf("costs measured (converted from cycles at %g GHz)", f)
	}
	return "costs measured"
}

// parseCPUs parses a --cpus value in the kernel's list syntax and checks
// every CPU is in m, so that a typo is reported against the flag rather
// than deep inside the tree builder.
func parseCPUs(m *topo.Model, s string) ([]int, error) {
	ids, err := sysfs.ParseCPUList(s)
	if err != nil {
		return nil, usagef("--cpus: %v (want e.g. 0-7,16)", err)
	}
	if len(ids) == 0 {
		return nil, usagef("--cpus: empty list")
	}
	for _, id := range ids {
		if _, ok := m.Index(id); !ok {
			return nil, usagef("--cpus: cpu %d is not in model %s (its cpus are %s)", id, m.Name, formatCPUList(m.IDs()))
		}
	}
	return ids, nil
}

// formatCPUList writes ids in the kernel's list syntax, "0-9,20-29".
func formatCPUList(ids []int) string {
	ids = slices.Sorted(slices.Values(ids))
	var parts []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, strconv.Itoa(ids[i]))
		default:
			parts = append(parts, fmt.Sprintf("%d-%d", ids[i], ids[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// rootFlag is --root: a CPU id, or "auto" for the cheapest root.
type rootFlag struct{ id int }

func (r *rootFlag) String() string {
	if r == nil || r.id < 0 {
		return "auto"
	}
	return strconv.Itoa(r.id)
}

func (r *rootFlag) Set(s string) error {
	if s == "auto" {
		r.id = -1
		return nil
	}
	id, err := strconv.Atoi(s)
	if err != nil || id < 0 {
		return fmt.Errorf("want a CPU id or auto")
	}
	r.id = id
	return nil
}
