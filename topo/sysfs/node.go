package sysfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/plexus-hpc/plexus/topo"
)

// readNodes reads the NUMA nodes under dir (devices/system/node), in
// ascending node number, and sets each CPU's Node. The distance matrix is
// nil when any node lacks a distance file.
func readNodes(dir string, cpus []topo.CPU) ([]topo.Node, [][]float64, error) {
	nums, err := nodeNumbers(dir)
	if err != nil {
		return nil, nil, err
	}
	if len(nums) == 0 {
		// Kernels built without NUMA support have no node directories; the
		// machine is then one node holding every CPU (Node is already 0).
		return []topo.Node{{OSIndex: 0}}, nil, nil
	}
	nodes := make([]topo.Node, len(nums))
	owner := map[int]int{} // CPU id -> index in nodes
	for i, n := range nums {
		nd := filepath.Join(dir, "node"+strconv.Itoa(n))
		if err := claimCPUs(nd, i, nums, owner); err != nil {
			return nil, nil, err
		}
		mem, err := readMemTotal(filepath.Join(nd, "meminfo"))
		if err != nil {
			return nil, nil, err
		}
		nodes[i] = topo.Node{OSIndex: n, MemoryBytes: mem}
	}
	for i := range cpus {
		ni, ok := owner[cpus[i].ID]
		if !ok {
			return nil, nil, fileError(dir, "online cpu%d is in no node's cpulist", cpus[i].ID)
		}
		cpus[i].Node = ni
	}
	dist, err := readDistances(dir, nums)
	return nodes, dist, err
}

// nodeNumbers lists the nodeN directories under dir, sorted. Node numbers
// may be sparse (node0, node2), so they are read rather than counted.
func nodeNumbers(dir string) ([]int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sysfs: %w", err)
	}
	var nums []int
	for _, e := range entries {
		suffix, ok := strings.CutPrefix(e.Name(), "node")
		if !ok || !e.IsDir() {
			continue
		}
		if n, err := parseCPU(suffix); err == nil {
			nums = append(nums, n)
		}
	}
	if len(nums) > topo.MaxNodes {
		return nil, fileError(dir, "%w: %d node directories, more than topo.MaxNodes = %d", topo.ErrTooLarge, len(nums), topo.MaxNodes)
	}
	slices.Sort(nums)
	return nums, nil
}

// claimCPUs records node index i as the owner of the CPUs in its cpulist.
// Offline CPUs may appear there; they are simply never looked up.
func claimCPUs(nodeDir string, i int, nums []int, owner map[int]int) error {
	path := filepath.Join(nodeDir, "cpulist")
	ids, _, err := readList(path, true)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if prev, dup := owner[id]; dup {
			return fileError(path, "cpu%d is also in node%d", id, nums[prev])
		}
		owner[id] = i
	}
	return nil
}

// readDistances reads each node's distance row; row i lists the distance
// from node i to every node in ascending node number.
func readDistances(dir string, nums []int) ([][]float64, error) {
	dist := make([][]float64, len(nums))
	for i, n := range nums {
		path := filepath.Join(dir, "node"+strconv.Itoa(n), "distance")
		s, ok, err := readOptional(path)
		if err != nil || !ok {
			return nil, err
		}
		if dist[i], err = parseDistanceRow(path, s, len(nums)); err != nil {
			return nil, err
		}
	}
	return dist, nil
}

func parseDistanceRow(path, s string, want int) ([]float64, error) {
	fields := strings.Fields(s)
	if len(fields) != want {
		return nil, fileError(path, "row has %d entries, want %d (one per node)", len(fields), want)
	}
	row := make([]float64, want)
	for j, f := range fields {
		d, err := strconv.Atoi(f)
		if err != nil || d < 0 {
			return nil, fileError(path, "entry %d: %q is not a non-negative integer", j, f)
		}
		row[j] = float64(d)
	}
	return row, nil
}

// readMemTotal returns the node's MemTotal in bytes from a meminfo file
// ("Node 0 MemTotal:  4024536 kB"), or 0 when the file or line is absent.
func readMemTotal(path string) (uint64, error) {
	s, ok, err := readOptional(path)
	if err != nil || !ok {
		return 0, err
	}
	for line := range strings.Lines(s) {
		f := strings.Fields(line)
		if len(f) < 4 || f[2] != "MemTotal:" {
			continue
		}
		kb, err := strconv.ParseUint(f[3], 10, 64)
		if err != nil || len(f) != 5 || f[4] != "kB" || kb > 1<<53 {
			return 0, fileError(path, "cannot read MemTotal from %q", strings.TrimSpace(line))
		}
		return kb * 1024, nil
	}
	return 0, nil
}
