package sysfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/plexus-hpc/plexus/topo"
)

// fileError reports a problem with one sysfs file. Every error from the
// package names the file so that a user can look at it. The format may
// wrap errors with %w.
func fileError(path, format string, args ...any) error {
	return fmt.Errorf("sysfs: %s: "+format, append([]any{path}, args...)...)
}

// readOptional returns the trimmed contents of path and whether it exists.
// A missing file is not an error: which files exist depends on the kernel
// version and architecture.
// Files longer than maxFileBytes, or not regular, are errors.
func readOptional(path string) (string, bool, error) {
	f, err := topo.OpenFile(path, maxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("sysfs: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return "", false, fmt.Errorf("sysfs: %w", err)
	}
	return strings.TrimSpace(string(b)), true, nil
}

// maxFileBytes bounds every file Discover reads. The longest real one, a
// CPU list of topo.MaxCPUs unranged numbers, is under half of it.
const maxFileBytes = 1 << 20

// readInt reads a file holding one decimal integer, returning def when the
// file does not exist.
func readInt(path string, def int) (int, error) {
	s, ok, err := readOptional(path)
	if err != nil || !ok {
		return def, err
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fileError(path, "%q is not an integer", s)
	}
	return n, nil
}

// readList reads a file in CPU list syntax; a missing file is an error when
// required, else it yields ok == false.
func readList(path string, required bool) (ids []int, ok bool, err error) {
	s, ok, err := readOptional(path)
	if err != nil {
		return nil, false, err
	}
	if !ok {
		if required {
			return nil, false, fileError(path, "missing")
		}
		return nil, false, nil
	}
	ids, err = ParseCPUList(s)
	if err != nil {
		return nil, false, fileError(path, "%w", err)
	}
	return ids, true, nil
}

// dense hands out dense indices 0, 1, ... to keys in order of first use,
// which is how the model numbers packages, cores and caches.
type dense[K comparable] map[K]int

func (d dense[K]) id(k K) int {
	if v, ok := d[k]; ok {
		return v
	}
	v := len(d)
	d[k] = v
	return v
}
