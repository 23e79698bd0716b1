package comm

import (
	"slices"
	"testing"
)

// Host keys as hostKey writes them: name, boot id, network namespace.
const (
	bootA = "11111111-2222-3333-4444-555555555555"
	bootB = "66666666-7777-8888-9999-000000000000"
)

func key(name, boot, ns string) string { return name + "/" + boot + "/net:[" + ns + "]" }

func TestMachineShare(t *testing.T) {
	h1, h2, h3 := key("h1", bootA, "1"), key("h2", bootA, "2"), key("h3", bootA, "3")
	other := key("n1", bootB, "1")
	cpus := []int{0, 1, 2, 3, 4}
	for _, tc := range []struct {
		name  string
		hosts []string
		rank  int
		cpus  []int
		want  []int
	}{
		{"alone on its machine", []string{h1, h1, other, other}, 0, cpus, nil},
		{"first of two hosts", []string{h1, h1, h2, h2}, 1, []int{0, 1}, []int{0}},
		{"second of two hosts", []string{h1, h1, h2, h2}, 2, []int{0, 1}, []int{1}},
		{"uneven: first takes the extra", []string{h1, h2}, 0, cpus, []int{0, 1, 2}},
		{"uneven: second", []string{h1, h2}, 1, cpus, []int{3, 4}},
		{"hosts by lowest rank", []string{h2, h1, h2, h1}, 1, []int{0, 1}, []int{1}},
		{"more hosts than CPUs", []string{h1, h2, h3}, 2, []int{4, 7}, []int{4}},
		{"other machine's hosts do not count", []string{h1, other, key("n2", bootB, "2"), h2}, 3, []int{0, 1}, []int{1}},
		{"no CPUs", []string{h1, h2}, 0, nil, nil},
		{"rank out of range", []string{h1, h2}, 2, cpus, nil},
	} {
		got := machineShare(tc.hosts, tc.rank, tc.cpus)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: machineShare(rank %d, cpus %v) = %v, want %v", tc.name, tc.rank, tc.cpus, got, tc.want)
		}
	}
}

// Every host's share is disjoint from the others' and together they
// cover the CPUs, for any number of hosts up to the CPUs.
func TestMachineSharePartitions(t *testing.T) {
	cpus := []int{2, 3, 5, 8, 9, 11, 12}
	for n := 2; n <= len(cpus); n++ {
		var hosts []string
		for h := range n {
			hosts = append(hosts, key("h", bootA, string(rune('a'+h))))
		}
		var all []int
		for r := range hosts {
			all = append(all, machineShare(hosts, r, cpus)...)
		}
		if !slices.Equal(all, cpus) {
			t.Errorf("%d hosts: shares in host order %v, want every CPU once %v", n, all, cpus)
		}
	}
}
