package shm

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// StaleAge is how old a segment in which no rank ever registered must be
// before CleanStale takes it for a leftover of a crashed creator.
const StaleAge = time.Minute

// CleanStale removes the segments in dir (empty means DefaultDir) that
// belong to this user and whose every registered rank's process is gone
// (kill(pid, 0) fails with ESRCH), and returns their paths. Files that are
// not Plexus segments are left alone. A job that is merely slow to start
// keeps its segment: one live rank is enough.
func CleanStale(dir string) ([]string, error) {
	if dir == "" {
		dir = DefaultDir
	}
	paths, err := filepath.Glob(filepath.Join(dir, fmt.Sprintf("plexus-*-%d", os.Getuid())))
	if err != nil {
		return nil, fmt.Errorf("shm: %w", err)
	}
	var removed []string
	for _, p := range paths {
		if stale(p, time.Now()) && os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed, nil
}

// stale reports whether the segment at path is a Plexus segment no live
// process uses.
func stale(path string, now time.Time) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	hdr, size, err := readHeader(f)
	if err != nil || size < line || atomic.LoadUint64(word(hdr, magicOff)) != magic || *word(hdr, versionOff) != version {
		return false
	}
	ranks := int(*word(hdr, ranksOff))
	if ranks < 1 || ranks > MaxRanks || size < int64(rankLines+ranks*line) {
		return false
	}
	return noLivePID(f, ranks, now)
}

// noLivePID reads the rank lines and reports whether none names a live
// process (and, if none names any, whether the file is older than StaleAge).
func noLivePID(f *os.File, ranks int, now time.Time) bool {
	buf := make([]uint64, ranks*line/8)
	lines := asBytes(buf)
	if _, err := f.ReadAt(lines, rankLines); err != nil {
		return false
	}
	registered := false
	for r := range ranks {
		pid := *word(lines, r*line+pidOff)
		if pid != 0 {
			registered = true
			if processAlive(int(pid)) {
				return false
			}
		}
	}
	fi, err := f.Stat()
	return err == nil && (registered || now.Sub(fi.ModTime()) > StaleAge)
}
