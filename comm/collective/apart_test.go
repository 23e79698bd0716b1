package collective

import (
	"testing"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

func hellos(crowded bool, places ...struct {
	machine string
	cpus    []int
}) []hello {
	hs := make([]hello, len(places))
	for r, p := range places {
		hs[r] = hello{Crowded: crowded, Machine: p.machine, CPUs: p.cpus}
	}
	return hs
}

type at = struct {
	machine string
	cpus    []int
}

func TestHostsApart(t *testing.T) {
	two := [][]int{{0, 1}, {2, 3}}
	for _, tc := range []struct {
		name   string
		groups [][]int
		hs     []hello
		want   bool
	}{
		{"one machine, a CPU per host", two, hellos(true, at{"m", []int{0}}, at{"m", []int{0}}, at{"m", []int{1}}, at{"m", []int{1}}), true},
		{"one machine, floating", two, hellos(true, at{"m", []int{0, 1}}, at{"m", []int{0, 1}}, at{"m", []int{0, 1}}, at{"m", []int{0, 1}}), false},
		{"mpirun's binding: rank i on CPU i of every host", two, hellos(true, at{"m", []int{0}}, at{"m", []int{1}}, at{"m", []int{0}}, at{"m", []int{1}}), false},
		{"a host's ranks on CPUs of their own each", two, hellos(true, at{"m", []int{0}}, at{"m", []int{1}}, at{"m", []int{2}}, at{"m", []int{3}}), true},
		{"two machines, same CPU numbers", two, hellos(true, at{"a", []int{0, 1}}, at{"a", []int{0, 1}}, at{"b", []int{0, 1}}, at{"b", []int{0, 1}}), true},
		{"a rank without CPUs", two, hellos(true, at{"m", []int{0}}, at{"m", nil}, at{"m", []int{1}}, at{"m", []int{1}}), false},
		{"a rank without machine", two, hellos(true, at{"m", []int{0}}, at{"", []int{0}}, at{"m", []int{1}}, at{"m", []int{1}}), false},
	} {
		if got := hostsApart(tc.groups, tc.hs); got != tc.want {
			t.Errorf("%s: hostsApart = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestTwoLevels(t *testing.T) {
	two := [][]int{{0, 1}, {2, 3}}
	apart := func(crowded bool) []hello {
		return hellos(crowded, at{"m", []int{0}}, at{"m", []int{0}}, at{"m", []int{1}}, at{"m", []int{1}})
	}
	floating := hellos(true, at{"m", []int{0, 1}}, at{"m", []int{0, 1}}, at{"m", []int{0, 1}}, at{"m", []int{0, 1}})
	for _, tc := range []struct {
		name   string
		groups [][]int
		hs     []hello
		cfg    Config
		want   bool
	}{
		{"crowded, apart", two, apart(true), Config{}, true},
		{"not crowded", two, apart(false), Config{}, false},
		{"crowded, floating", two, floating, Config{}, false},
		{"one host", [][]int{{0, 1, 2, 3}}, apart(true), Config{}, false},
		{"Allreduce forced", two, apart(true), Config{Allreduce: tree.AllreduceTrees}, false},
		{"NoPosts", two, apart(true), Config{NoPosts: true}, false},
		{"AcrossCrowded", two, apart(true), Config{AcrossCrowded: true}, false},
		{"a given model", two, apart(true), Config{Given: &topo.Model{}}, false},
	} {
		if got := twoLevels(tc.groups, tc.hs, tc.cfg); got != tc.want {
			t.Errorf("%s: twoLevels = %v, want %v", tc.name, got, tc.want)
		}
	}
}
