package topo

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Limits on what the readers of this package and of topo/sysfs, topo/hwloc,
// topo/smelt and topo/load accept. Input past a limit is refused with an
// error wrapping ErrTooLarge that names the limit and the value found, so
// that a corrupt or hostile file costs an error rather than the process's
// memory. docs/model-format.md lists them.
const (
	// MaxCPUs is the most CPUs a model, topology or CPU list may hold. It
	// is above any machine Linux runs on (NR_CPUS tops out at 8192).
	MaxCPUs = 65536
	// MaxCostCPUs is the most CPUs a model with send and receive costs may
	// hold. Costs are n×n matrices of float64: at this size one takes
	// 32 MiB and a measured model's four 128 MiB, and its file stays under
	// MaxFileBytes; at MaxCPUs one alone would take 32 GiB. Larger
	// topologies load, but cannot be given costs (Estimate refuses them).
	MaxCostCPUs = 2048
	// MaxNodes is the most NUMA nodes a model may hold, Linux's
	// MAX_NUMNODES; it bounds the nodes×nodes distance matrix.
	MaxNodes = 1024
	// MaxCPUID is the largest OS CPU number accepted. It bounds the memory
	// of bitmaps and CPU lists that name CPUs by number.
	MaxCPUID = 1<<20 - 1
	// MaxFileBytes is the largest input file: a model file of MaxCostCPUs
	// CPUs with measured costs, an hwloc XML export of MaxCPUs CPUs and a
	// Smelt pairwise file all fit.
	MaxFileBytes = 512 << 20
	// MaxXMLBytes is the largest hwloc XML file. An export takes about a
	// kilobyte per hardware thread, so one of MaxCPUs threads fits; the
	// decoded tree takes a few times the file's size in memory.
	MaxXMLBytes = 128 << 20
	// MaxCost is the largest cost a model may hold, in its unit (cycles or
	// nanoseconds): minutes at any clock rate, so no measurement comes
	// near it, and the sums the tree simulator forms over any model of
	// MaxCostCPUs CPUs stay finite.
	MaxCost = 1e12
)

// Errors for input the readers refuse before parsing it.
var (
	// ErrTooLarge is wrapped by every error for input past one of the limits.
	ErrTooLarge = errors.New("topo: input too large")
	// ErrNotRegular is wrapped by the error for a path that is not a
	// regular file, such as a device or a FIFO.
	ErrNotRegular = errors.New("topo: not a regular file")
)

// CheckCPUs returns an error wrapping ErrTooLarge when n CPUs exceed
// MaxCPUs, or, when withCosts, MaxCostCPUs. Readers call it before they
// allocate anything sized by n.
func CheckCPUs(n int, withCosts bool) error {
	if n > MaxCPUs {
		return fmt.Errorf("%w: %d CPUs, more than topo.MaxCPUs = %d", ErrTooLarge, n, MaxCPUs)
	}
	if withCosts && n > MaxCostCPUs {
		return fmt.Errorf("%w: %d CPUs, more than topo.MaxCostCPUs = %d for a model with costs (n×n matrices)",
			ErrTooLarge, n, MaxCostCPUs)
	}
	return nil
}

// OpenFile opens path for reading at most max bytes. It refuses anything
// but a regular file (a device such as /dev/zero or a FIFO never ends)
// and files larger than max; the reader fails with ErrTooLarge if the file
// grows past max while being read. Both errors name the file.
func OpenFile(path string, max int64) (io.ReadCloser, error) {
	// Stat before opening: opening a FIFO for reading blocks until a
	// writer comes, which may be never.
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(path, st, max); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	// Again on what was opened, in case the path changed in between.
	if st, err = f.Stat(); err == nil {
		err = checkRegular(path, st, max)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return limitedFile{LimitReader(f, max, path), f}, nil
}

// checkRegular refuses anything but a regular file of at most max bytes.
func checkRegular(path string, st fs.FileInfo, max int64) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is %s", ErrNotRegular, path, kind(st.Mode()))
	}
	if st.Size() > max {
		return fmt.Errorf("%w: %s has %d bytes, more than the limit of %d%s", ErrTooLarge, path, st.Size(), max, limitName(max))
	}
	return nil
}

// kind names a file type for errors.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "of type " + m.Type().String()
}

type limitedFile struct {
	io.Reader
	io.Closer
}

// LimitReader returns a reader of r that fails with an error wrapping
// ErrTooLarge, naming name and max, once r has more than max bytes.
func LimitReader(r io.Reader, max int64, name string) io.Reader {
	return &limitReader{r: io.LimitReader(r, max+1), max: max, name: name}
}

type limitReader struct {
	r         io.Reader
	read, max int64
	name      string
}

func (l *limitReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if l.read += int64(n); l.read > l.max {
		return n - int(l.read-l.max), fmt.Errorf("%w: %s is longer than the limit of %d bytes%s", ErrTooLarge, l.name, l.max, limitName(l.max))
	}
	return n, err
}

// limitName names the limit of max bytes, when it is one of this
// package's, for errors: " (topo.MaxXMLBytes)".
func limitName(max int64) string {
	switch max {
	case MaxFileBytes:
		return " (topo.MaxFileBytes)"
	case MaxXMLBytes:
		return " (topo.MaxXMLBytes)"
	}
	return ""
}
