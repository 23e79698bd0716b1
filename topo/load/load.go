package load

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/topo/hwloc"
	"github.com/plexus-hpc/plexus/topo/smelt"
)

// ErrUnknownFormat is wrapped by the error Open returns for a path it
// cannot classify.
var ErrUnknownFormat = errors.New("not a model file, Smelt machine directory, Barrelfish matrix or hwloc XML")

// Open loads the model named by spec (see the package documentation).
func Open(spec string) (*topo.Model, error) {
	st, err := os.Stat(spec)
	if err != nil {
		if dir, name, ok := barrelfishSpec(spec); ok {
			return openBarrelfish(dir, name)
		}
		return nil, fmt.Errorf("load: %w", err)
	}
	if st.IsDir() {
		if _, err := os.Stat(filepath.Join(spec, smelt.LscpuFile)); err == nil {
			return smelt.ReadMachineDB(spec, smelt.Options{})
		}
		return nil, unknown(spec)
	}
	if err := checkFile(spec, st); err != nil {
		return nil, err
	}
	base := filepath.Base(spec)
	for _, prefix := range []string{"send_", "receive_"} {
		if name, ok := strings.CutPrefix(base, prefix); ok {
			return openBarrelfish(filepath.Dir(spec), name)
		}
	}
	switch firstByte(spec) {
	case '{':
		return topo.ReadFile(spec)
	case '<':
		return hwloc.ReadFile(spec, hwloc.Options{})
	}
	return nil, unknown(spec)
}

// checkFile refuses what no reader takes, before anything is read: a
// device such as /dev/zero never ends, and no model file is past
// topo.MaxFileBytes.
func checkFile(spec string, st os.FileInfo) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("load: %w: %s", topo.ErrNotRegular, spec)
	}
	if st.Size() > topo.MaxFileBytes {
		return fmt.Errorf("load: %w: %s has %d bytes, more than topo.MaxFileBytes = %d",
			topo.ErrTooLarge, spec, st.Size(), topo.MaxFileBytes)
	}
	return nil
}

func unknown(spec string) error { return fmt.Errorf("load: %s: %w", spec, ErrUnknownFormat) }

// barrelfishSpec splits "DIR:machine_variant" when DIR is a directory.
func barrelfishSpec(spec string) (dir, name string, ok bool) {
	i := strings.LastIndexByte(spec, ':')
	if i <= 0 || i == len(spec)-1 {
		return "", "", false
	}
	dir, name = spec[:i], spec[i+1:]
	st, err := os.Stat(dir)
	return dir, name, err == nil && st.IsDir()
}

func openBarrelfish(dir, name string) (*topo.Model, error) {
	machine, variant := smelt.SplitBarrelfishName(name)
	return smelt.ReadBarrelfish(dir, machine, variant, smelt.Options{})
}

// firstByte returns the first non-space byte of the file, 0 when it is
// empty, unreadable, not a regular file or longer than the readers take.
func firstByte(path string) byte {
	f, err := topo.OpenFile(path, topo.MaxFileBytes)
	if err != nil {
		return 0
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for {
		b, err := r.ReadByte()
		if err != nil {
			return 0
		}
		if strings.IndexByte(" \t\r\n\xef\xbb\xbf", b) < 0 { // space or UTF-8 BOM
			return b
		}
	}
}
