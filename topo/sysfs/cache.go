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

// cacheKey identifies one cache instance by its level and the CPUs sharing
// it (as a canonical string); sysfs has no machine-wide cache id that all
// kernels provide.
type cacheKey struct {
	level  int
	shared string
}

// readCaches sets L2 and L3 of each CPU from cpuN/cache/indexK. Dense ids
// are handed out in CPU order, separately per level. A CPU without a cache
// directory keeps -1 (unknown).
func readCaches(cpuDir string, cpus []topo.CPU) error {
	perLevel := map[int]dense[string]{2: {}, 3: {}}
	for i := range cpus {
		dir := filepath.Join(cpuDir, "cpu"+strconv.Itoa(cpus[i].ID), "cache")
		keys, err := cpuCaches(dir, cpus[i].ID)
		if err != nil {
			return err
		}
		for _, k := range keys {
			id := perLevel[k.level].id(k.shared)
			if k.level == 2 {
				cpus[i].L2 = id
			} else {
				cpus[i].L3 = id
			}
		}
	}
	return nil
}

// cpuCaches returns the L2 and L3 data or unified caches listed under one
// CPU's cache directory, at most one per level (the first in index order).
func cpuCaches(dir string, cpu int) ([]cacheKey, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sysfs: %w", err)
	}
	var keys []cacheKey
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "index") {
			continue
		}
		k, ok, err := readCache(filepath.Join(dir, e.Name()), cpu)
		if err != nil {
			return nil, err
		}
		if ok && !slices.ContainsFunc(keys, func(o cacheKey) bool { return o.level == k.level }) {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// readCache reads one cache index directory; ok is false for caches the
// model does not record (L1, L4, instruction caches) and for incomplete
// entries.
func readCache(dir string, cpu int) (k cacheKey, ok bool, err error) {
	if k.level, err = readInt(filepath.Join(dir, "level"), 0); err != nil {
		return k, false, err
	}
	if k.level != 2 && k.level != 3 {
		return k, false, nil
	}
	typ, _, err := readOptional(filepath.Join(dir, "type"))
	if err != nil || (typ != "Unified" && typ != "Data") {
		return k, false, err
	}
	path := filepath.Join(dir, "shared_cpu_list")
	shared, found, err := readList(path, false)
	if err != nil {
		return k, false, err
	}
	if !found {
		// Without a sharing list the cache can only be assumed private.
		shared = []int{cpu}
	}
	if !slices.Contains(shared, cpu) {
		return k, false, fileError(path, "does not contain cpu%d, whose cache it describes", cpu)
	}
	k.shared = fmt.Sprint(shared)
	return k, true, nil
}
