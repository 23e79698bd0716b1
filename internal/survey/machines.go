package survey

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/topo/hwloc"
	"github.com/plexus-hpc/plexus/topo/smelt"
)

// Machine is a named model with costs.
type Machine struct {
	Name  string
	Model *topo.Model
}

// Machines loads every machine under dataDir (the repository's data/):
// the Smelt machine-database directories, every complete Barrelfish-era
// matrix pair, and every hwloc XML file with estimated costs. Names are
// prefixed by their kind, e.g. "smelt/intel_xeon_e5_v2_2x10",
// "barrelfish/gruyere_NUMA", "hwloc/nvidiaDGX2".
func Machines(dataDir string) ([]Machine, error) {
	var out []Machine
	for _, load := range []func(string) ([]Machine, error){machineDB, barrelfish, hwlocFiles} {
		ms, err := load(dataDir)
		if err != nil {
			return nil, err
		}
		out = append(out, ms...)
	}
	return out, nil
}

func machineDB(dataDir string) ([]Machine, error) {
	dirs, err := filepath.Glob(filepath.Join(dataDir, "smelt", "machinedb", "*"))
	if err != nil {
		return nil, err
	}
	var out []Machine
	for _, d := range dirs {
		m, err := smelt.ReadMachineDB(d, smelt.Options{})
		if err != nil {
			return nil, err
		}
		out = append(out, Machine{"smelt/" + filepath.Base(d), m})
	}
	return out, nil
}

func barrelfish(dataDir string) ([]Machine, error) {
	dir := filepath.Join(dataDir, "smelt", "barrelfish")
	names, err := smelt.BarrelfishMachines(dir)
	if err != nil {
		return nil, err
	}
	var out []Machine
	for _, n := range names {
		mach, variant := smelt.SplitBarrelfishName(n)
		m, err := smelt.ReadBarrelfish(dir, mach, variant, smelt.Options{})
		if err != nil {
			return nil, err
		}
		out = append(out, Machine{"barrelfish/" + n, m})
	}
	return out, nil
}

func hwlocFiles(dataDir string) ([]Machine, error) {
	var paths []string
	root := filepath.Join(dataDir, "hwloc")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".xml") {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []Machine
	for _, p := range paths {
		m, err := hwloc.ReadFile(p, hwloc.Options{})
		if err != nil {
			return nil, err
		}
		if err := topo.Estimate(m, topo.DefaultEstimate()); err != nil {
			return nil, fmt.Errorf("survey: %s: %w", p, err)
		}
		out = append(out, Machine{"hwloc/" + strings.TrimSuffix(filepath.Base(p), ".xml"), m})
	}
	return out, nil
}

// Sizes returns the group sizes surveyed on an n-CPU machine: every size
// 2..n up to 64 CPUs, above that a spread of about spread sizes from 2 to n
// (always including both ends).
func Sizes(n, spread int) []int {
	if n <= 64 {
		out := make([]int, 0, n)
		for k := 2; k <= n; k++ {
			out = append(out, k)
		}
		return out
	}
	out := []int{2}
	for i := 1; i < spread; i++ {
		k := 2 + (n-2)*i/(spread-1)
		if k > out[len(out)-1] {
			out = append(out, k)
		}
	}
	return out
}
