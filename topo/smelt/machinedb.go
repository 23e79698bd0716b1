package smelt

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/plexus-hpc/plexus/topo"
)

// File names inside a Smelt machinedb directory.
const (
	LscpuFile   = "lscpu.txt"
	LikwidFile  = "likwid.txt"
	CpuinfoFile = "proc_cpuinfo.txt"
	SendFile    = "pairwise-nsend_send"
	RecvFile    = "pairwise-nsend_receive"
)

// ReadMachineDB reads a Smelt machinedb directory (see the package
// documentation) into a model with Source "smelt" named after the
// directory.
//
// Topology: CPUs and NUMA nodes come from lscpu.txt ("CPU(s):", "NUMA
// nodeN CPU(s):"; a machine without NUMA lines is one node). Cores and
// packages come from likwid.txt's hardware thread table when present;
// otherwise each NUMA node (or group of Nodes/Sockets nodes) is a package
// and each CPU is a core, unless "Thread(s) per core" t > 1, in which case
// CPUs c and c+N/t are taken to be SMT siblings (the usual Linux x86
// numbering). L2 is assumed private to a core and L3 shared by a NUMA node.
//
// Clock: opt.FreqGHz when set; else the nominal "@ x.xxGHz" of the model
// name (lscpu "Model name:" or proc_cpuinfo.txt "model name"), which is
// the TSC rate the benchmark counted in; else lscpu "CPU MHz:".
func ReadMachineDB(dir string, opt Options) (*topo.Model, error) {
	l, err := readLscpu(filepath.Join(dir, LscpuFile))
	if err != nil {
		return nil, err
	}
	m := &topo.Model{Name: filepath.Base(filepath.Clean(dir))}
	if err := buildTopology(m, l, dir); err != nil {
		return nil, err
	}
	model := l.modelName
	if model == "" {
		model = cpuinfoModel(filepath.Join(dir, CpuinfoFile))
	}
	ghz, err := chooseFreq(opt, model, l.mhz)
	if err != nil {
		return nil, fmt.Errorf("smelt: %s: %w", dir, err)
	}
	m.Provenance = topo.Provenance{Source: "smelt", CPUModel: model, FreqGHz: ghz,
		Notes: "imported from Smelt machinedb; costs converted from TSC cycles"}
	ids := m.IDs()
	if m.Send, err = readPairs(filepath.Join(dir, SendFile), ids, pairSyntax{}); err != nil {
		return nil, err
	}
	if m.Recv, err = readPairs(filepath.Join(dir, RecvFile), ids, pairSyntax{}); err != nil {
		return nil, err
	}
	toNanos(m.Send, ghz)
	toNanos(m.Recv, ghz)
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("smelt: %s: %w", dir, err)
	}
	return m, nil
}

func chooseFreq(opt Options, model string, mhz float64) (float64, error) {
	switch {
	case opt.FreqGHz < 0:
		return 0, fmt.Errorf("Options.FreqGHz %v is negative", opt.FreqGHz)
	case opt.FreqGHz > 0:
		return opt.FreqGHz, nil
	case nominalGHz(model) > 0:
		return nominalGHz(model), nil
	case mhz > 0:
		return mhz / 1000, nil
	}
	return 0, errors.New("CPU frequency unknown (no \"@ x.xxGHz\" model name or \"CPU MHz:\"); set Options.FreqGHz")
}

// buildTopology fills m.CPUs and m.Nodes from lscpu and, when present,
// likwid.txt. CPUs are sorted by OS number.
func buildTopology(m *topo.Model, l *lscpu, dir string) error {
	lpath := filepath.Join(dir, LscpuFile)
	if len(l.nodes) == 0 {
		l.nodes[0] = make([]int, l.cpus)
		for i := range l.nodes[0] {
			l.nodes[0][i] = i
		}
	}
	nodeOf := map[int]int{}
	for k, osIdx := range l.nodeOrder() {
		m.Nodes = append(m.Nodes, topo.Node{OSIndex: osIdx})
		for _, id := range l.nodes[osIdx] {
			if prev, dup := nodeOf[id]; dup {
				return fmt.Errorf("smelt: %s:%d: CPU %d also in node %d", lpath, l.nodeLine[osIdx], id, m.Nodes[prev].OSIndex)
			}
			nodeOf[id] = k
			m.CPUs = append(m.CPUs, topo.CPU{ID: id, Node: k, L2: -1, L3: k})
		}
	}
	if len(m.CPUs) != l.cpus {
		return fmt.Errorf("smelt: %s: NUMA node lists hold %d CPUs, \"CPU(s):\" says %d", lpath, len(m.CPUs), l.cpus)
	}
	sort.Slice(m.CPUs, func(a, b int) bool { return m.CPUs[a].ID < m.CPUs[b].ID })
	lk, err := readLikwid(filepath.Join(dir, LikwidFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		deriveCores(m, l)
	case err != nil:
		return err
	default:
		if err := applyLikwid(m, lk, filepath.Join(dir, LikwidFile)); err != nil {
			return err
		}
	}
	for i := range m.CPUs {
		m.CPUs[i].L2 = m.CPUs[i].Core
	}
	return nil
}

// applyLikwid sets Package and Core (dense, in order of (socket, core))
// from likwid's thread table, which must list exactly lscpu's CPUs.
func applyLikwid(m *topo.Model, lk map[int]likwidThread, path string) error {
	for id, t := range lk {
		if _, ok := m.Index(id); !ok {
			return fmt.Errorf("smelt: %s:%d: CPU %d is not in %s", path, t.line, id, LscpuFile)
		}
	}
	type key struct{ socket, core int }
	var keys []key
	for _, c := range m.CPUs {
		t, ok := lk[c.ID]
		if !ok {
			return fmt.Errorf("smelt: %s: CPU %d of %s is missing", path, c.ID, LscpuFile)
		}
		keys = append(keys, key{t.socket, t.core})
	}
	sockets, cores := map[int]int{}, map[key]int{}
	sorted := append([]key(nil), keys...)
	sort.Slice(sorted, func(a, b int) bool {
		x, y := sorted[a], sorted[b]
		return x.socket < y.socket || x.socket == y.socket && x.core < y.core
	})
	for _, k := range sorted {
		if _, ok := sockets[k.socket]; !ok {
			sockets[k.socket] = len(sockets)
		}
		if _, ok := cores[k]; !ok {
			cores[k] = len(cores)
		}
	}
	for i, k := range keys {
		m.CPUs[i].Package, m.CPUs[i].Core = sockets[k.socket], cores[k]
	}
	return nil
}

// deriveCores sets Package and Core without likwid: packages are NUMA
// nodes (or groups of nodes when there are more nodes than sockets) and
// CPU c shares a core with c mod (N/threadsPerCore).
func deriveCores(m *topo.Model, l *lscpu) {
	perPkg := 1
	if l.sockets > 0 && len(m.Nodes) > l.sockets && len(m.Nodes)%l.sockets == 0 {
		perPkg = len(m.Nodes) / l.sockets
	}
	t := max(l.threadsPerCore, 1)
	if l.cpus%t != 0 {
		t = 1
	}
	for i := range m.CPUs {
		c := &m.CPUs[i]
		c.Package = c.Node / perPkg
		c.Core = c.ID % (l.cpus / t)
	}
	densify(m)
}

// densify renumbers Core densely in order of first appearance.
func densify(m *topo.Model) {
	ids := map[int]int{}
	for i := range m.CPUs {
		c := &m.CPUs[i]
		if _, ok := ids[c.Core]; !ok {
			ids[c.Core] = len(ids)
		}
		c.Core = ids[c.Core]
	}
}
