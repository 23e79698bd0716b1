package hwloc

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/plexus-hpc/plexus/topo"
)

// Options controls the import.
type Options struct {
	// IncludeDisallowed imports every PU and NUMA node of the file. By
	// default only those in the root object's allowed_cpuset and
	// allowed_nodeset are imported, as lstopo shows them without
	// --disallowed.
	IncludeDisallowed bool
}

// ReadFile imports the hwloc XML file at path. The model is named after
// the file, without directory and .xml suffix.
func ReadFile(path string, opt Options) (*topo.Model, error) {
	f, err := topo.OpenFile(path, topo.MaxXMLBytes)
	if err != nil {
		return nil, fmt.Errorf("hwloc: %w", err)
	}
	defer f.Close()
	m, err := Read(f, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m.Name = strings.TrimSuffix(filepath.Base(path), ".xml")
	return m, nil
}

// Read imports an hwloc v2 XML topology. The model has no costs (Send and
// Recv are nil); its Name is the HostName info, or "hwloc" without one.
// It reads at most topo.MaxXMLBytes and refuses topologies past
// topo.MaxCPUs, topo.MaxNodes or topo.MaxCPUID, with errors wrapping
// topo.ErrTooLarge.
func Read(r io.Reader, opt Options) (*topo.Model, error) {
	t, err := decode(topo.LimitReader(r, topo.MaxXMLBytes, "hwloc XML"))
	if err != nil {
		return nil, err
	}
	root := &t.Objects[0]
	w := newWalker()
	if err := w.visit(root, ancestors{-1, -1, -1, -1}); err != nil {
		return nil, err
	}
	sel, err := selectAllowed(root, w, opt)
	if err != nil {
		return nil, err
	}
	m := &topo.Model{Format: topo.FormatVersion, CPUs: sel.cpus(), Nodes: sel.modelNodes()}
	var notes []string
	m.Distance, notes, err = numaDistances(t.Distances, w.nodes, sel.nodes)
	if err != nil {
		return nil, err
	}
	m.Provenance = provenance(t, root, w, append(sel.notes, notes...))
	m.Name = m.Provenance.Host
	if m.Name == "" {
		m.Name = "hwloc"
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("hwloc: %w", err)
	}
	return m, nil
}

// provenance records where the model came from. Platform infos go to
// Notes because the model has no fields for them.
func provenance(t *xmlTopology, root *xmlObject, w *walker, notes []string) topo.Provenance {
	p := topo.Provenance{Source: "hwloc", Host: root.info("HostName"), CPUModel: w.pkgModel}
	if p.CPUModel == "" {
		p.CPUModel = w.anyModel
	}
	parts := []string{"hwloc XML " + t.Version}
	for _, k := range []string{"DMISysVendor", "DMIProductName", "PlatformModel", "Architecture", "ClusterMode", "MemoryMode"} {
		if v := root.info(k); v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	p.Notes = strings.Join(append(parts, notes...), "; ")
	return p
}
