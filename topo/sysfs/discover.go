package sysfs

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/plexus-hpc/plexus/topo"
)

// Discover reads the topology of the machine whose sysfs is mounted at root
// ("/sys" for the running machine) and returns a validated model without
// costs. Provenance.Source is "sysfs"; Name, Host, CPUModel and Date are left
// empty for the caller (see Local) so that Discover depends on nothing but
// the files under root.
func Discover(root string) (*topo.Model, error) {
	cpuDir := filepath.Join(root, "devices", "system", "cpu")
	online := filepath.Join(cpuDir, "online")
	ids, _, err := readList(online, true)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, fileError(online, "no online CPUs")
	}
	cpus, err := readTopology(cpuDir, ids)
	if err != nil {
		return nil, err
	}
	if err := readCaches(cpuDir, cpus); err != nil {
		return nil, err
	}
	nodes, dist, err := readNodes(filepath.Join(root, "devices", "system", "node"), cpus)
	if err != nil {
		return nil, err
	}
	m := &topo.Model{
		Provenance: topo.Provenance{Source: "sysfs"},
		CPUs:       cpus,
		Nodes:      nodes,
		Distance:   dist,
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("sysfs: %s: %w", root, err)
	}
	return m, nil
}

// coreKey identifies a physical core. core_id is only unique within a die
// (and on some kernels only within a package), so the die and package are
// part of the key. cpu is -1 unless the kernel gives no core_id, in which
// case each CPU is taken to be a core of its own.
type coreKey struct{ pkg, die, core, cpu int }

// readTopology returns one CPU per online id with Package and Core set.
// L2 and L3 start at -1 (unknown) and Node at 0 until caches and nodes are
// read.
func readTopology(cpuDir string, ids []int) ([]topo.CPU, error) {
	keys := make([]coreKey, len(ids))
	for i, id := range ids {
		k, err := readCoreKey(filepath.Join(cpuDir, "cpu"+strconv.Itoa(id), "topology"), id)
		if err != nil {
			return nil, err
		}
		keys[i] = k
	}
	pkgs := densePackages(keys)
	cores := dense[coreKey]{}
	cpus := make([]topo.CPU, len(ids))
	for i, id := range ids {
		cpus[i] = topo.CPU{ID: id, Package: pkgs[keys[i].pkg], Core: cores.id(keys[i]), L2: -1, L3: -1}
	}
	return cpus, nil
}

// readCoreKey reads one CPU's topology directory. All its files are
// optional: some architectures and virtual machines omit them, and a machine
// of one package with unshared cores is the safe reading of that silence.
func readCoreKey(dir string, cpu int) (coreKey, error) {
	k := coreKey{cpu: -1}
	var err error
	if k.pkg, err = readInt(filepath.Join(dir, "physical_package_id"), 0); err != nil {
		return k, err
	}
	if k.die, err = readInt(filepath.Join(dir, "die_id"), 0); err != nil {
		return k, err
	}
	if k.core, err = readInt(filepath.Join(dir, "core_id"), -1); err != nil {
		return k, err
	}
	if k.core == -1 {
		k.cpu = cpu
	}
	return k, nil
}

// densePackages numbers physical package ids densely in ascending order, so
// that package 0 stays 0 even when CPU 0 is offline.
func densePackages(keys []coreKey) map[int]int {
	var ids []int
	for _, k := range keys {
		ids = append(ids, k.pkg)
	}
	slices.Sort(ids)
	d := dense[int]{}
	for _, id := range slices.Compact(ids) {
		d.id(id)
	}
	return d
}
