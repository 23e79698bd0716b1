package smelt

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/plexus-hpc/plexus/topo"
)

// Machine describes one of the ETH Zurich machines measured under
// Barrelfish. The matrices carry no topology, so it comes from this table
// (data/smelt/README.md and the coresenum_print_* dumps).
//
// Layout: core ids are grouped in contiguous blocks of Cores/Nodes per NUMA
// node, each node is one package with one L3 (none on nos), and with
// ThreadsPerCore = 2 the ids 2k and 2k+1 are SMT siblings. The blocks are
// confirmed by coresenum_print_gruyere/sbrinz (blocks of 4) and by the
// receive matrices, where cross-block costs are 2-5x the in-block ones; on
// tomme, receive costs between 2k and 2k+1 are ~7 cycles against ~85 within
// a node, which identifies them as siblings (coresenum_print_tomme lists
// "Core [2 CPUs]" without ids).
type Machine struct {
	Name           string
	Processor      string
	Cores          int // hardware threads
	Nodes          int // 0 when the NUMA layout is unknown
	ThreadsPerCore int
	HasL3          bool
	FreqGHz        float64
	Notes          string
}

var machines = []Machine{
	{"gottardo", "Intel Nehalem-EX (I NL 4x8x1)", 32, 4, 1, true, 1.87, ""},
	{"gruyere", "AMD Barcelona (A BC 8x4x1)", 32, 8, 1, true, 2.0, ""},
	{"ziger", "AMD Istanbul (A IS 4x6x1)", 24, 4, 1, true, 2.5, ""},
	{"sbrinz", "AMD Shanghai (A SH 4x4x1)", 16, 4, 1, true, 2.5, ""},
	{"tomme", "Intel Bloomfield (I BF 2x4x2)", 16, 2, 2, true, 2.27, ""},
	{"nos", "AMD Santa Rosa (A SR 2x2x1)", 4, 2, 1, false, 2.0,
		"clock unknown: 2.0 GHz assumed"},
	{"brie", "unknown (README: brie8, partial)", 8, 0, 1, false, 2.0,
		"8 cores from the README name brie8; NUMA layout and clock unknown"},
}

// LookupMachine returns the table entry of a known Barrelfish machine.
func LookupMachine(name string) (Machine, bool) {
	for _, m := range machines {
		if m.Name == name {
			return m, true
		}
	}
	return Machine{}, false
}

// SplitBarrelfishName splits "gottardo_NUMA" into machine "gottardo" and
// variant "NUMA"; a name without '_' has an empty variant.
func SplitBarrelfishName(name string) (machine, variant string) {
	machine, variant, _ = strings.Cut(name, "_")
	return machine, variant
}

func barrelfishName(machine, variant string) string {
	if variant == "" {
		return machine
	}
	return machine + "_" + variant
}

// ReadBarrelfish reads send_<machine>_<variant> and
// receive_<machine>_<variant> from dir (variant "" for files named
// send_<machine>) into a model with Source "barrelfish". Both files must
// hold every ordered pair of distinct cores; src==dst rows must be -1.
// Otherwise the error is an *IncompleteError ("incomplete: N of M pairs").
// The clock is opt.FreqGHz or the machine table's.
func ReadBarrelfish(dir, machine, variant string, opt Options) (*topo.Model, error) {
	info, ok := LookupMachine(machine)
	if !ok {
		return nil, fmt.Errorf("smelt: unknown Barrelfish machine %q (known: %s)", machine, strings.Join(knownNames(), ", "))
	}
	m := &topo.Model{Name: barrelfishName(machine, variant)}
	for i := 0; i < info.Cores; i++ {
		m.CPUs = append(m.CPUs, topo.CPU{ID: i})
	}
	if err := readBarrelfishCosts(m, dir, info); err != nil {
		return nil, err
	}
	if err := layout(m, info); err != nil {
		return nil, err
	}
	ghz := info.FreqGHz
	if opt.FreqGHz < 0 {
		return nil, fmt.Errorf("smelt: %s: Options.FreqGHz %v is negative", m.Name, opt.FreqGHz)
	} else if opt.FreqGHz > 0 {
		ghz = opt.FreqGHz
	}
	toNanos(m.Send, ghz)
	toNanos(m.Recv, ghz)
	m.Provenance = topo.Provenance{Source: "barrelfish", CPUModel: info.Processor, FreqGHz: ghz,
		Notes: strings.TrimSpace("Barrelfish UMP measurements (2013-2015), layout from the smelt machine table. " + info.Notes)}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("smelt: %s: %w", m.Name, err)
	}
	return m, nil
}

func readBarrelfishCosts(m *topo.Model, dir string, info Machine) error {
	ids, name := m.IDs(), m.Name
	var err error
	syn := pairSyntax{diagMinusOne: true}
	if m.Send, err = readPairs(filepath.Join(dir, "send_"+name), ids, syn); err != nil {
		return err
	}
	m.Recv, err = readPairs(filepath.Join(dir, "receive_"+name), ids, syn)
	return err
}

// layout assigns nodes, packages, cores and caches from the table entry.
func layout(m *topo.Model, info Machine) error {
	if info.Nodes <= 0 || info.Cores%info.Nodes != 0 {
		return fmt.Errorf("smelt: %s: NUMA layout of %s unknown", m.Name, info.Name)
	}
	per := info.Cores / info.Nodes
	for k := 0; k < info.Nodes; k++ {
		m.Nodes = append(m.Nodes, topo.Node{OSIndex: k})
	}
	for i := range m.CPUs {
		c := &m.CPUs[i]
		c.Node = c.ID / per
		c.Package = c.Node
		c.Core = c.ID / info.ThreadsPerCore
		c.L2, c.L3 = c.Core, -1
		if info.HasL3 {
			c.L3 = c.Node
		}
	}
	return nil
}

func knownNames() []string {
	var s []string
	for _, m := range machines {
		s = append(s, m.Name)
	}
	return s
}

// BarrelfishMachines lists the "machine_variant" names (or "machine" when
// there is no variant) in dir for which ReadBarrelfish succeeds: both files
// exist and are complete and the machine is in the table. Incomplete or
// unpaired sets are left out.
func BarrelfishMachines(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("smelt: %w", err)
	}
	var out []string
	for _, e := range ents {
		name, ok := strings.CutPrefix(e.Name(), "send_")
		if !ok {
			continue
		}
		mach, variant := SplitBarrelfishName(name)
		if _, err := ReadBarrelfish(dir, mach, variant, Options{}); err == nil {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}
