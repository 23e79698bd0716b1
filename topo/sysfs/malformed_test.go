package sysfs_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/topo/sysfs"
)

// TestDiscoverMalformed breaks one file of a valid two-socket tree at a
// time and checks that the error names the file and the problem.
func TestDiscoverMalformed(t *testing.T) {
	const nodeDir = "devices/system/node/"
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, root string)
		file  string // path the error must name, relative to root
		want  string
	}{
		{"online garbage", set("devices/system/cpu/online", "0-x"), "devices/system/cpu/online", "not a CPU number"},
		{"online missing", remove("devices/system/cpu/online"), "devices/system/cpu/online", "missing"},
		{"online empty", set("devices/system/cpu/online", ""), "devices/system/cpu/online", "no online CPUs"},
		{"package id", set(cpuPath(1, "topology/physical_package_id"), "zero"), cpuPath(1, "topology/physical_package_id"), "not an integer"},
		{"core id", set(cpuPath(3, "topology/core_id"), "3.5"), cpuPath(3, "topology/core_id"), "not an integer"},
		{"cache level", set(cpuPath(0, "cache/index2/level"), "two"), cpuPath(0, "cache/index2/level"), "not an integer"},
		{"cache sharing", set(cpuPath(0, "cache/index3/shared_cpu_list"), "0-"), cpuPath(0, "cache/index3/shared_cpu_list"), "missing number"},
		{"cache foreign", set(cpuPath(0, "cache/index2/shared_cpu_list"), "1,5"), cpuPath(0, "cache/index2/shared_cpu_list"), "does not contain cpu0"},
		{"node cpulist", set(nodeDir+"node0/cpulist", "0,1,a"), nodeDir + "node0/cpulist", "not a CPU number"},
		{"node cpulist missing", remove(nodeDir + "node1/cpulist"), nodeDir + "node1/cpulist", "missing"},
		{"cpu in no node", set(nodeDir+"node1/cpulist", ""), nodeDir, "cpu2 is in no node"},
		{"cpu in two nodes", set(nodeDir+"node1/cpulist", "0-7"), nodeDir + "node1/cpulist", "cpu0 is also in node0"},
		{"distance short", set(nodeDir+"node0/distance", "10"), nodeDir + "node0/distance", "row has 1 entries, want 2"},
		{"distance long", set(nodeDir+"node1/distance", "21 10 30"), nodeDir + "node1/distance", "row has 3 entries, want 2"},
		{"distance garbage", set(nodeDir+"node1/distance", "21 ten"), nodeDir + "node1/distance", `"ten" is not`},
		{"distance negative", set(nodeDir+"node1/distance", "-21 10"), nodeDir + "node1/distance", `"-21" is not`},
		{"meminfo", set(nodeDir+"node0/meminfo", "Node 0 MemTotal: lots kB"), nodeDir + "node0/meminfo", "cannot read MemTotal"},
		{"meminfo unit", set(nodeDir+"node0/meminfo", "Node 0 MemTotal: 12 MB"), nodeDir + "node0/meminfo", "cannot read MemTotal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := build(t, machine{
				sockets: 2, cores: 2, threads: 2,
				nodes:    []int{0, 1},
				distance: [][]int{{10, 21}, {21, 10}},
				memKB:    []uint64{1024, 1024},
			})
			tc.spoil(t, root)
			m, err := sysfs.Discover(root)
			if err == nil {
				t.Fatalf("Discover succeeded: %+v", m)
			}
			msg := err.Error()
			file := filepath.Join(root, filepath.FromSlash(tc.file))
			if !strings.HasPrefix(msg, "sysfs: ") || !strings.Contains(msg, file) || !strings.Contains(msg, tc.want) {
				t.Errorf("error %q\nwant it to name %s and say %q", msg, file, tc.want)
			}
		})
	}
}

func set(rel, content string) func(*testing.T, string) {
	return func(t *testing.T, root string) { writeFile(t, root, rel, content) }
}

func remove(rel string) func(*testing.T, string) {
	return func(t *testing.T, root string) { removeAll(t, root, rel) }
}
