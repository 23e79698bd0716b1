package sysfs_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/plexus-hpc/plexus/topo/sysfs"
)

// Discover reads any directory laid out like /sys. This one describes a
// small machine without NUMA support: one package, two cores, two threads
// per core, numbered the way x86 Linux numbers them (siblings 0 and 2).
func ExampleDiscover() {
	root, err := os.MkdirTemp("", "sysfs-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(root)
	files := map[string]string{"devices/system/cpu/online": "0-3\n"}
	for cpu := range 4 {
		dir := fmt.Sprintf("devices/system/cpu/cpu%d/", cpu)
		files[dir+"topology/physical_package_id"] = "0\n"
		files[dir+"topology/core_id"] = fmt.Sprintf("%d\n", cpu%2)
		files[dir+"cache/index2/level"] = "2\n"
		files[dir+"cache/index2/type"] = "Unified\n"
		files[dir+"cache/index2/shared_cpu_list"] = fmt.Sprintf("%d,%d\n", cpu%2, cpu%2+2)
	}
	for name, content := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fmt.Println(err)
			return
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			fmt.Println(err)
			return
		}
	}

	m, err := sysfs.Discover(root)
	if err != nil {
		fmt.Println(err)
		return
	}
	packages, cores, nodes := m.Counts()
	fmt.Printf("%d CPUs, %d package, %d cores, %d node\n", m.N(), packages, cores, nodes)
	for _, c := range m.CPUs {
		fmt.Printf("cpu%d: core %d, L2 %d, L3 %d, node %d\n", c.ID, c.Core, c.L2, c.L3, c.Node)
	}
	// Output:
	// 4 CPUs, 1 package, 2 cores, 1 node
	// cpu0: core 0, L2 0, L3 -1, node 0
	// cpu1: core 1, L2 1, L3 -1, node 0
	// cpu2: core 0, L2 0, L3 -1, node 0
	// cpu3: core 1, L2 1, L3 -1, node 0
}

func ExampleParseCPUList() {
	ids, err := sysfs.ParseCPUList("0-3,8,10-11\n")
	fmt.Println(ids, err)
	_, err = sysfs.ParseCPUList("0-3,,8")
	fmt.Println(err)
	// Output:
	// [0 1 2 3 8 10 11] <nil>
	// cpu list "0-3,,8": empty element
}
