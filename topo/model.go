package topo

import (
	"errors"
	"fmt"
)

// FormatVersion is the version of the JSON model file written by Save.
// Load accepts files of this version only and says so when it meets another.
const FormatVersion = 1

// Errors returned by the package; wrap-aware callers use errors.Is.
var (
	ErrInvalid = errors.New("topo: invalid model")
	ErrFormat  = errors.New("topo: unsupported model file format")
)

// CPU is one logical CPU (hardware thread) of a machine.
type CPU struct {
	// ID is the operating system's logical CPU number.
	ID int `json:"id"`
	// Package is the dense index (0..) of the physical package (socket).
	Package int `json:"package"`
	// Core is the dense, machine-wide index of the physical core; CPUs with
	// equal Core are SMT siblings.
	Core int `json:"core"`
	// Node is the index into Model.Nodes of the CPU's NUMA node.
	Node int `json:"node"`
	// L2 and L3 identify the caches the CPU uses (machine-wide dense ids);
	// CPUs with equal ids share that cache. -1 means none or unknown.
	L2 int `json:"l2"`
	L3 int `json:"l3"`
}

// Node is one NUMA node.
type Node struct {
	// OSIndex is the operating system's NUMA node number.
	OSIndex int `json:"os_index"`
	// MemoryBytes is the node's local memory, 0 when unknown.
	MemoryBytes uint64 `json:"memory_bytes,omitempty"`
}

// Costs is a pairwise cost matrix in nanoseconds, indexed
// [sender index][receiver index] by position in Model.CPUs. The diagonal is 0.
type Costs struct {
	Mean [][]float64 `json:"mean"`
	// SD holds standard deviations; nil when unknown (estimated costs).
	SD [][]float64 `json:"sd,omitempty"`
}

// Provenance says where a model came from.
type Provenance struct {
	Host     string `json:"host,omitempty"`
	CPUModel string `json:"cpu_model,omitempty"`
	// Source is how the model was obtained: "sysfs", "hwloc", "smelt",
	// "barrelfish", "measured" or "file".
	Source string `json:"source"`
	// Date is when the model (or its measurements) was made, RFC 3339 or
	// YYYY-MM-DD; empty when unknown.
	Date string `json:"date,omitempty"`
	// FreqGHz is the clock used to convert cycles to nanoseconds on import,
	// 0 when no conversion happened.
	FreqGHz float64 `json:"freq_ghz,omitempty"`
	// CostsEstimated is true when Send/Recv come from Estimate, not from
	// measurement.
	CostsEstimated bool   `json:"costs_estimated,omitempty"`
	Notes          string `json:"notes,omitempty"`
}

// Model is a machine: its CPUs, NUMA nodes and distances, and the pairwise
// send and receive costs that the tree generator simulates.
//
// Send.Mean[i][j] is how long CPU index i is busy sending one message to j;
// Recv.Mean[i][j] is how long j is busy receiving a message from i. Both are
// indexed by position in CPUs (not by OS CPU number; see Index).
type Model struct {
	Format     int        `json:"format"`
	Name       string     `json:"name"`
	Provenance Provenance `json:"provenance"`
	CPUs       []CPU      `json:"cpus"`
	Nodes      []Node     `json:"nodes"`
	// Distance is the NUMA distance matrix (ACPI SLIT style, 10 = local),
	// indexed by position in Nodes; nil when unknown.
	Distance [][]float64 `json:"numa_distance,omitempty"`
	Send     *Costs      `json:"send,omitempty"`
	Recv     *Costs      `json:"recv,omitempty"`
	// Latency is the optional latency under load: Latency.Mean[i][j] is
	// the time, beyond Send[i][j] and Recv[i][j], from the end of i's send
	// to the moment j can start receiving the message, when every CPU of
	// the machine exchanges messages at once (a dependent hop pays the
	// cache line's travel, which Send and Recv, measured with one pair
	// busy and messages pipelined, leave out). It is symmetric when
	// measured. nil means zero: older model files and estimated or
	// imported models simulate as before. It needs Send and Recv.
	Latency *Costs `json:"latency,omitempty"`
}

// N returns the number of CPUs in the model.
func (m *Model) N() int { return len(m.CPUs) }

// HasCosts reports whether the model has send and receive costs.
func (m *Model) HasCosts() bool { return m.Send != nil && m.Recv != nil }

// Index returns the position in m.CPUs of the CPU with OS number id.
func (m *Model) Index(id int) (int, bool) {
	for i, c := range m.CPUs {
		if c.ID == id {
			return i, true
		}
	}
	return 0, false
}

// IDs returns the OS CPU numbers of all CPUs, in model order.
func (m *Model) IDs() []int {
	ids := make([]int, len(m.CPUs))
	for i, c := range m.CPUs {
		ids[i] = c.ID
	}
	return ids
}

// SameNode reports whether CPU indices i and j share a NUMA node.
func (m *Model) SameNode(i, j int) bool { return m.CPUs[i].Node == m.CPUs[j].Node }

// NodeDistance returns the NUMA distance between the nodes of CPU indices i
// and j: from Distance when known, else 10 on the same node and 20 across.
func (m *Model) NodeDistance(i, j int) float64 {
	a, b := m.CPUs[i].Node, m.CPUs[j].Node
	if m.Distance != nil {
		return m.Distance[a][b]
	}
	if a == b {
		return 10
	}
	return 20
}

// Counts returns the number of packages, physical cores and NUMA nodes.
func (m *Model) Counts() (packages, cores, nodes int) {
	p, c := map[int]bool{}, map[int]bool{}
	for _, cpu := range m.CPUs {
		p[cpu.Package], c[cpu.Core] = true, true
	}
	return len(p), len(c), len(m.Nodes)
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// NewCosts returns an n×n zero cost matrix, with an SD matrix when withSD.
// Like make, it panics if n is negative.
func NewCosts(n int, withSD bool) *Costs {
	c := &Costs{Mean: square(n)}
	if withSD {
		c.SD = square(n)
	}
	return c
}

func square(n int) [][]float64 {
	a := make([][]float64, n)
	flat := make([]float64, n*n)
	for i := range a {
		a[i] = flat[i*n : (i+1)*n : (i+1)*n]
	}
	return a
}
