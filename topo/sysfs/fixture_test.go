package sysfs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/topo/sysfs"
)

// machine describes a fixture sysfs tree: sockets × cores × threads, with
// an L2 cache per core and an L3 per socket, numbered as x86 Linux does
// (first the first thread of every core, then the second threads, ...).
type machine struct {
	sockets, cores, threads int // cores per socket, threads per core

	online   string   // online CPU list; "" means every CPU
	nodes    []int    // NUMA node numbers; nil writes no node directory
	distance [][]int  // distance rows in node order; nil writes none
	memKB    []uint64 // MemTotal per node; nil writes no meminfo
}

func (m machine) ncpu() int { return m.sockets * m.cores * m.threads }

func (m machine) cpuID(s, c, t int) int { return t*m.sockets*m.cores + s*m.cores + c }

// nodeOf spreads cores evenly over the nodes, which covers one node per
// socket, several sockets per node and several nodes per socket alike.
func (m machine) nodeOf(s, c int) int { return (s*m.cores + c) * len(m.nodes) / (m.sockets * m.cores) }

// build writes the tree into a temporary directory and returns its root.
func build(t testing.TB, m machine) string {
	t.Helper()
	root := t.TempDir()
	if m.online == "" {
		m.online = fmt.Sprintf("0-%d", m.ncpu()-1)
	}
	online := m.onlineSet(t)
	nodeCPUs := make([][]int, len(m.nodes))
	for s := range m.sockets {
		for c := range m.cores {
			for th := range m.threads {
				id := m.cpuID(s, c, th)
				if !online[id] {
					// Offline CPUs keep their directory but lose topology
					// and cache information, as on x86.
					writeFile(t, root, cpuPath(id, "online"), "0")
					continue
				}
				m.writeCPU(t, root, s, c, id)
				if len(m.nodes) > 0 {
					n := m.nodeOf(s, c)
					nodeCPUs[n] = append(nodeCPUs[n], id)
				}
			}
		}
	}
	writeFile(t, root, "devices/system/cpu/online", m.online)
	m.writeNodes(t, root, nodeCPUs)
	return root
}

func (m machine) onlineSet(t testing.TB) map[int]bool {
	ids, err := sysfs.ParseCPUList(m.online)
	if err != nil {
		t.Fatal(err)
	}
	set := map[int]bool{}
	for _, id := range ids {
		set[id] = true
	}
	return set
}

func (m machine) writeCPU(t testing.TB, root string, s, c, id int) {
	writeFile(t, root, cpuPath(id, "topology/physical_package_id"), strconv.Itoa(s))
	writeFile(t, root, cpuPath(id, "topology/die_id"), "0")
	writeFile(t, root, cpuPath(id, "topology/core_id"), strconv.Itoa(c))
	var core, socket []int
	for th := range m.threads {
		core = append(core, m.cpuID(s, c, th))
	}
	for c2 := range m.cores {
		for th := range m.threads {
			socket = append(socket, m.cpuID(s, c2, th))
		}
	}
	self := strconv.Itoa(id)
	writeCache(t, root, id, 0, 1, "Data", self)
	writeCache(t, root, id, 1, 1, "Instruction", self)
	writeCache(t, root, id, 2, 2, "Unified", list(core))
	writeCache(t, root, id, 3, 3, "Unified", list(socket))
}

func writeCache(t testing.TB, root string, cpu, index, level int, typ, shared string) {
	dir := fmt.Sprintf("cache/index%d/", index)
	writeFile(t, root, cpuPath(cpu, dir+"level"), strconv.Itoa(level))
	writeFile(t, root, cpuPath(cpu, dir+"type"), typ)
	writeFile(t, root, cpuPath(cpu, dir+"shared_cpu_list"), shared)
}

func (m machine) writeNodes(t testing.TB, root string, nodeCPUs [][]int) {
	for i, n := range m.nodes {
		dir := fmt.Sprintf("devices/system/node/node%d/", n)
		writeFile(t, root, dir+"cpulist", list(nodeCPUs[i]))
		if m.distance != nil {
			writeFile(t, root, dir+"distance", strings.Trim(fmt.Sprint(m.distance[i]), "[]"))
		}
		if m.memKB != nil {
			writeFile(t, root, dir+"meminfo", fmt.Sprintf(
				"Node %d MemTotal:       %d kB\nNode %d MemFree:        1024 kB\n", n, m.memKB[i], n))
		}
	}
}

func cpuPath(id int, rel string) string {
	return fmt.Sprintf("devices/system/cpu/cpu%d/%s", id, rel)
}

// writeFile writes content and the trailing newline sysfs files end with.
func writeFile(t testing.TB, root, rel, content string) {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func removeAll(t testing.TB, root, rel string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
		t.Fatal(err)
	}
}

// list formats CPU ids in kernel list syntax, with ranges where ids are
// consecutive, e.g. [0 1 2 5] -> "0-2,5".
func list(ids []int) string {
	var parts []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(ids[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", ids[i], ids[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
