package hwloc

import (
	"fmt"
	"strconv"

	"github.com/plexus-hpc/plexus/topo"
)

// rawPU is a PU with the raw indices of its enclosing objects. Raw indices
// count objects in document order over the whole file; they are made dense
// only after disallowed PUs are dropped.
type rawPU struct {
	os                int
	pkg, core, l2, l3 int // l2, l3: -1 without such a cache
}

// rawNode is a NUMANode object. gp is -1 when the object has no gp_index.
type rawNode struct {
	os, gp int
	cpuset bitmap
	mem    uint64
}

// walker collects PUs, NUMA nodes and the CPU model from the object tree.
type walker struct {
	pus                   []rawPU
	nodes                 []rawNode
	nPkg, nCore, nL2, nL3 int
	noPkg                 int // raw package index shared by PUs outside any Package, -1 until needed
	pkgModel, anyModel    string
}

// ancestors carries the raw indices of the enclosing Package, Core and
// caches down the tree.
type ancestors struct{ pkg, core, l2, l3 int }

// skipped types never contain PUs or NUMA nodes: I/O devices and Misc.
var skipped = map[string]bool{"Bridge": true, "PCIDev": true, "OSDev": true, "Misc": true}

func newWalker() *walker { return &walker{noPkg: -1} }

func (w *walker) visit(o *xmlObject, a ancestors) error {
	if o.Type == "" {
		return fmt.Errorf("hwloc: %s has no type attribute", o.describe())
	}
	if skipped[o.Type] {
		return nil
	}
	if m := o.info("CPUModel"); m != "" && w.anyModel == "" {
		w.anyModel = m
	}
	switch o.Type {
	case "PU":
		return w.addPU(o, a)
	case "NUMANode":
		if err := w.addNode(o); err != nil {
			return err
		}
	case "Package", "Socket": // Socket is the hwloc 1.x name hwloc still accepts
		a.pkg, w.nPkg = w.nPkg, w.nPkg+1
		if m := o.info("CPUModel"); m != "" && w.pkgModel == "" {
			w.pkgModel = m
		}
	case "Core":
		a.core, w.nCore = w.nCore, w.nCore+1
	default:
		if err := w.cache(o, &a); err != nil {
			return err
		}
	}
	for i := range o.Children {
		if err := w.visit(&o.Children[i], a); err != nil {
			return err
		}
	}
	return nil
}

// cache records o in a when it is a unified or data L2 or L3 cache.
func (w *walker) cache(o *xmlObject, a *ancestors) error {
	level, err := cacheLevel(o)
	switch {
	case err != nil:
		return err
	case level == 2:
		a.l2, w.nL2 = w.nL2, w.nL2+1
	case level == 3:
		a.l3, w.nL3 = w.nL3, w.nL3+1
	}
	return nil
}

// cacheLevel returns 2 or 3 for L2/L3 caches, 0 for anything else. v2
// names the level in the type; the older generic "Cache" type carries it
// in depth, and cache_type 2 marks an instruction cache, which does not
// hold shared data and so is not a sharing domain for the model.
func cacheLevel(o *xmlObject) (int, error) {
	switch o.Type {
	case "L2Cache":
		return 2, nil
	case "L3Cache":
		return 3, nil
	case "Cache":
	default:
		return 0, nil
	}
	d, err := o.index("depth", o.Depth)
	if err != nil || o.CacheType == "2" {
		return 0, err
	}
	return d, nil
}

func (w *walker) addPU(o *xmlObject, a ancestors) error {
	os, err := o.index("os_index", o.OSIndex)
	if err != nil {
		return err
	}
	if err := topo.CheckCPUs(len(w.pus)+1, false); err != nil {
		return fmt.Errorf("hwloc: %w", err)
	}
	if a.pkg < 0 {
		// Files without Package objects describe one package.
		if w.noPkg < 0 {
			w.noPkg, w.nPkg = w.nPkg, w.nPkg+1
		}
		a.pkg = w.noPkg
	}
	if a.core < 0 {
		// Without Core objects each PU is its own core.
		a.core, w.nCore = w.nCore, w.nCore+1
	}
	w.pus = append(w.pus, rawPU{os: os, pkg: a.pkg, core: a.core, l2: a.l2, l3: a.l3})
	return nil
}

func (w *walker) addNode(o *xmlObject) error {
	os, err := o.index("os_index", o.OSIndex)
	if err != nil {
		return err
	}
	n := rawNode{os: os, gp: -1}
	if o.GPIndex != "" {
		if n.gp, err = o.index("gp_index", o.GPIndex); err != nil {
			return err
		}
	}
	if n.cpuset, err = o.bitmap("cpuset", o.CPUSet, o.CompleteCPUSet); err != nil {
		return err
	}
	if o.LocalMemory != "" {
		if n.mem, err = strconv.ParseUint(o.LocalMemory, 10, 64); err != nil {
			return fmt.Errorf("hwloc: %s: local_memory %q is not a byte count", o.describe(), o.LocalMemory)
		}
	}
	w.nodes = append(w.nodes, n)
	return nil
}
