package sysfs

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/plexus-hpc/plexus/topo"
)

// ParseCPUList parses the kernel's CPU list syntax, as found in
// devices/system/cpu/online, node cpulist and cache shared_cpu_list files:
// comma-separated decimal numbers and inclusive ranges, e.g. "0-3,8,10-11".
// Surrounding white space (the trailing newline) is ignored and an empty
// list is valid, because memory-only NUMA nodes have an empty cpulist. The
// result is sorted and free of duplicates.
//
// CPU numbers past topo.MaxCPUID and lists of more than topo.MaxCPUs
// entries are refused before they are expanded, with an error wrapping
// topo.ErrTooLarge: a corrupt "0-4294967295" costs an error, not gigabytes.
func ParseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var ids []int
	for elem := range strings.SplitSeq(s, ",") {
		lo, hi, err := parseRange(elem)
		if err == nil {
			err = topo.CheckCPUs(len(ids)+hi-lo+1, false)
		}
		if err != nil {
			return nil, fmt.Errorf("cpu list %q: %w", s, err)
		}
		for id := lo; id <= hi; id++ {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// parseRange parses one element of a CPU list: "N" or "N-M" with N <= M.
func parseRange(elem string) (lo, hi int, err error) {
	if elem == "" {
		return 0, 0, errors.New("empty element")
	}
	a, b, isRange := strings.Cut(elem, "-")
	if lo, err = parseCPU(a); err != nil {
		return 0, 0, fmt.Errorf("element %q: %w", elem, err)
	}
	if !isRange {
		return lo, lo, nil
	}
	if hi, err = parseCPU(b); err != nil {
		return 0, 0, fmt.Errorf("element %q: %w", elem, err)
	}
	if hi < lo {
		return 0, 0, fmt.Errorf("element %q: range is descending", elem)
	}
	return lo, hi, nil
}

// parseCPU parses a CPU number. It is stricter than strconv.Atoi, which
// would accept signs ("+1"), so that anything the kernel would not write is
// reported rather than guessed at.
func parseCPU(s string) (int, error) {
	if s == "" {
		return 0, errors.New("missing number")
	}
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not a CPU number", s)
		}
		n = n*10 + int(c-'0')
		if n > topo.MaxCPUID {
			return 0, fmt.Errorf("%w: CPU number %s exceeds topo.MaxCPUID = %d", topo.ErrTooLarge, s, topo.MaxCPUID)
		}
	}
	return n, nil
}
