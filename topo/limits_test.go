package topo

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cpusJSON is a model file declaring n CPUs on one node, without costs:
// a few bytes per CPU, so a file past the limits stays small.
func cpusJSON(n int) string {
	var b strings.Builder
	b.WriteString(`{"format":1,"name":"big","provenance":{"source":"test"},"nodes":[{"os_index":0}],"cpus":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"core":%d,"l2":-1,"l3":-1}`, i, i)
	}
	b.WriteString("]}")
	return b.String()
}

// TestReadFileRefusesOversized checks that inputs that used to exhaust
// memory are refused quickly, with an error naming the limit.
func TestReadFileRefusesOversized(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sparse := write("sparse.json", "{")
	if err := os.Truncate(sparse, MaxFileBytes+1); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		want       error
		msg        string
	}{
		{"100000 cpus", write("big.json", cpusJSON(100_000)), ErrTooLarge, "100000 CPUs, more than topo.MaxCPUs = 65536"},
		{"device", "/dev/zero", ErrNotRegular, "/dev/zero is a character device"},
		{"file past MaxFileBytes", sparse, ErrTooLarge, fmt.Sprintf("more than the limit of %d (topo.MaxFileBytes)", MaxFileBytes)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadFile(tc.path)
			if !errors.Is(err, tc.want) || !strings.Contains(fmt.Sprint(err), tc.msg) {
				t.Fatalf("ReadFile: %v; want %v with %q", err, tc.want, tc.msg)
			}
		})
	}
}

// TestEstimateRefusesOversized checks the limit on cost matrices before
// they are allocated: 20,000 CPUs would need 3.2 GB per matrix.
func TestEstimateRefusesOversized(t *testing.T) {
	m, err := Load(strings.NewReader(cpusJSON(20_000)))
	if err != nil {
		t.Fatal(err) // a topology of 20,000 CPUs is fine without costs
	}
	err = Estimate(m, DefaultEstimate())
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "topo.MaxCostCPUs = 2048") {
		t.Fatalf("Estimate: %v; want ErrTooLarge naming topo.MaxCostCPUs", err)
	}
}

// endless is a stream that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

func TestLimitReader(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    io.Reader
		want int
		err  error
	}{
		{"endless", endless{}, 100, ErrTooLarge},
		{"at the limit", strings.NewReader(strings.Repeat("x", 100)), 100, nil},
		{"one past", strings.NewReader(strings.Repeat("x", 101)), 100, ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := io.ReadAll(LimitReader(tc.r, 100, "input"))
			if len(b) != tc.want || !errors.Is(err, tc.err) {
				t.Fatalf("read %d bytes, %v; want %d, %v", len(b), err, tc.want, tc.err)
			}
			if err != nil && !strings.Contains(err.Error(), "input is longer than the limit of 100 bytes") {
				t.Fatalf("error %q does not name the input and the limit", err)
			}
		})
	}
}

// TestValidateCosts checks that costs must be finite, non-negative and
// zero on the diagonal, and that the other limits apply.
func TestValidateCosts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(m *Model)
		want  error
		msg   string
	}{
		{"NaN", func(m *Model) { m.Send.Mean[0][1] = math.NaN() }, ErrInvalid, "send.mean[0][1] = NaN"},
		{"Inf", func(m *Model) { m.Recv.Mean[2][1] = math.Inf(1) }, ErrInvalid, "recv.mean[2][1] = +Inf"},
		{"negative", func(m *Model) { m.Send.SD[1][0] = -1 }, ErrInvalid, "send.sd[1][0] = -1"},
		{"diagonal", func(m *Model) { m.Recv.Mean[3][3] = 5 }, ErrInvalid, "recv.mean[3][3] = 5, want 0 on the diagonal"},
		{"diagonal sd", func(m *Model) { m.Send.SD[0][0] = 1 }, ErrInvalid, "send.sd[0][0] = 1, want 0"},
		{"cpu id", func(m *Model) { m.CPUs[7].ID = MaxCPUID + 1 }, ErrTooLarge, "more than topo.MaxCPUID"},
		{"nodes", func(m *Model) { m.Nodes = make([]Node, MaxNodes+1) }, ErrTooLarge, "1025 NUMA nodes, more than topo.MaxNodes = 1024"},
		{"huge cost", func(m *Model) { m.Send.Mean[1][2] = 1e308 }, ErrTooLarge, "send.mean[1][2] = 1e+308, more than topo.MaxCost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := twoNode()
			tc.spoil(m)
			err := m.Validate()
			if !errors.Is(err, tc.want) || !strings.Contains(fmt.Sprint(err), tc.msg) {
				t.Fatalf("Validate: %v; want %v with %q", err, tc.want, tc.msg)
			}
		})
	}
}

// FuzzLoad checks that no input panics and that every accepted model is
// valid and within the limits.
func FuzzLoad(f *testing.F) {
	f.Add(cpusJSON(3))
	f.Add(`{"format":1,"cpus":[{"id":0},{"id":1}],"nodes":[{}],"send":{"mean":[[0,1],[1,0]]},"recv":{"mean":[[0,1],[1,0]]}}`)
	f.Fuzz(func(t *testing.T, s string) {
		m, err := Load(strings.NewReader(s))
		if err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("Load accepted an invalid model: %v", err)
		}
		if m.N() > MaxCPUs || len(m.Nodes) > MaxNodes {
			t.Fatalf("Load accepted %d CPUs, %d nodes", m.N(), len(m.Nodes))
		}
	})
}
