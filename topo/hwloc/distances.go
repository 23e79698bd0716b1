package hwloc

import (
	"fmt"
	"strconv"
	"strings"
)

// kindMeansLatency is HWLOC_DISTANCES_KIND_MEANS_LATENCY; the model's
// Distance is a latency-like (SLIT) matrix, so bandwidth matrices are not
// taken.
const kindMeansLatency = 4

// numaDistances returns the NUMA latency matrix ordered like the model's
// nodes (modelNodes are indices into nodes), or nil with a note when the
// file has none covering every model node. Only the matrix used is
// checked; hwloc files may carry others (Package, PU, bandwidth) that the
// model has no place for.
func numaDistances(ds []xmlDistances, nodes []rawNode, modelNodes []int) ([][]float64, []string, error) {
	d := pickNUMALatency(ds)
	if d == nil {
		return nil, nil, nil
	}
	full, err := d.matrix(nodes)
	if err != nil {
		return nil, nil, err
	}
	out := make([][]float64, len(modelNodes))
	for a, i := range modelNodes {
		out[a] = make([]float64, len(modelNodes))
		for b, j := range modelNodes {
			v, ok := full[[2]int{i, j}]
			if !ok {
				note := fmt.Sprintf("NUMA distances dropped: matrix does not cover node %d", nodes[i].os)
				return nil, []string{note}, nil
			}
			out[a][b] = float64(v)
		}
	}
	return out, nil, nil
}

// pickNUMALatency prefers the matrix named NUMALatency (the one the OS
// reports) over other NUMANode latency matrices, e.g. user-added ones.
func pickNUMALatency(ds []xmlDistances) *xmlDistances {
	var first *xmlDistances
	for i := range ds {
		d := &ds[i]
		if d.Type != "NUMANode" {
			continue
		}
		if d.Name == "NUMALatency" {
			return d
		}
		kind, err := strconv.ParseUint(d.Kind, 10, 64)
		if err == nil && kind&kindMeansLatency != 0 && first == nil {
			first = d
		}
	}
	return first
}

// matrix decodes d into entries keyed by pairs of indices into nodes.
func (d *xmlDistances) matrix(nodes []rawNode) (map[[2]int]uint64, error) {
	n, err := strconv.ParseUint(d.NbObjs, 10, 31)
	if err != nil || n == 0 {
		return nil, fmt.Errorf("hwloc: NUMANode distances2: nbobjs %q is not a positive integer", d.NbObjs)
	}
	idx, err := d.objects(nodes, int(n))
	if err != nil {
		return nil, err
	}
	vals, err := uints(strings.Join(d.Values, " "))
	if err != nil {
		return nil, fmt.Errorf("hwloc: NUMANode distances2 u64values: %w", err)
	}
	if len(vals) != len(idx)*len(idx) {
		return nil, fmt.Errorf("hwloc: NUMANode distances2 has %d values, want %d×%d = %d", len(vals), n, n, n*n)
	}
	m := make(map[[2]int]uint64, len(vals))
	for k, v := range vals {
		m[[2]int{idx[k/len(idx)], idx[k%len(idx)]}] = v
	}
	return m, nil
}

// objects maps the matrix's <indexes> to indices into nodes, by os_index
// or gp_index as the indexing attribute says (os when absent, as hwloc
// writes NUMANode matrices).
func (d *xmlDistances) objects(nodes []rawNode, n int) ([]int, error) {
	ids, err := uints(strings.Join(d.Indexes, " "))
	if err != nil {
		return nil, fmt.Errorf("hwloc: NUMANode distances2 indexes: %w", err)
	}
	if len(ids) != n {
		return nil, fmt.Errorf("hwloc: NUMANode distances2 lists %d indexes, want nbobjs=%d", len(ids), n)
	}
	byID := map[uint64]int{}
	for i, nd := range nodes {
		switch d.Indexing {
		case "", "os":
			byID[uint64(nd.os)] = i
		case "gp":
			if nd.gp >= 0 {
				byID[uint64(nd.gp)] = i
			}
		default:
			return nil, fmt.Errorf("hwloc: NUMANode distances2: unknown indexing %q", d.Indexing)
		}
	}
	out := make([]int, n)
	used := map[int]bool{}
	for k, id := range ids {
		i, ok := byID[id]
		if !ok || used[i] {
			return nil, fmt.Errorf("hwloc: NUMANode distances2: index %d (%s) names no NUMANode or repeats one", id, d.indexing())
		}
		out[k], used[i] = i, true
	}
	return out, nil
}

func (d *xmlDistances) indexing() string {
	if d.Indexing == "" {
		return "os"
	}
	return d.Indexing
}

// uints splits whitespace-separated decimal numbers.
func uints(s string) ([]uint64, error) {
	f := strings.Fields(s)
	out := make([]uint64, len(f))
	for i, t := range f {
		v, err := strconv.ParseUint(t, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an unsigned integer", t)
		}
		out[i] = v
	}
	return out, nil
}
