package shm

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// staleAge is how long after its creation a segment that some rank never
// joined may still be joined. Ranks that join through comm open their
// segment after the launcher's address exchange, which every rank of the
// job passes first, so the last of them comes well within it.
const staleAge = time.Minute

// CleanStale removes the segments in dir (empty means DefaultDir) that
// belong to this user and that no rank can use any more, and the ranks'
// doorbells whose segment is gone, and returns their paths. A segment is
// removed when every rank has joined and every one's process is gone
// (kill(pid, 0) fails with ESRCH), or the segment is older than a minute,
// some rank never joined and no rank's process is alive. A segment that
// a rank may still join keeps what the others sent it, even if they have
// all exited. Files that are not this user's private Plexus segments
// (openPrivate) are left alone.
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
	return append(removed, cleanBells(dir)...), nil
}

// cleanBells removes the doorbells (bell_linux.go) of this user's whose
// segment is gone: a rank removes its own when it closes, and one that
// was killed leaves it to the launcher or to here. It returns their
// paths.
func cleanBells(dir string) []string {
	bells, _ := filepath.Glob(filepath.Join(dir, fmt.Sprintf("plexus-*-%d.bell.*", os.Getuid()))) // the pattern is well formed
	var removed []string
	for _, b := range bells {
		seg := b[:strings.LastIndex(b, ".bell.")]
		if _, err := os.Lstat(seg); !errors.Is(err, fs.ErrNotExist) || !ownFIFO(b) {
			continue
		}
		if os.Remove(b) == nil {
			removed = append(removed, b)
		}
	}
	return removed
}

// stale reports whether the segment at path is a Plexus segment no rank
// can use any more.
func stale(path string, now time.Time) bool {
	f, err := openPrivate(path, os.O_RDONLY)
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
	live, absent, ok := countRanks(f, ranks)
	if !ok || live > 0 {
		return false
	}
	if absent == 0 {
		return true
	}
	fi, err := f.Stat()
	// The modification time is the creation's or later (writes through
	// the mapping may move it on), so the segment is at least this old.
	return err == nil && now.Sub(fi.ModTime()) > staleAge
}

// countRanks reads the rank lines and counts the ranks whose process is
// alive and the ranks that never joined (pid 0).
func countRanks(f *os.File, ranks int) (live, absent int, ok bool) {
	buf := make([]uint64, ranks*line/8)
	lines := asBytes(buf)
	if _, err := f.ReadAt(lines, rankLines); err != nil {
		return 0, 0, false
	}
	for r := range ranks {
		switch pid := *word(lines, r*line+pidOff); {
		case pid == 0:
			absent++
		case processAlive(int(pid)):
			live++
		}
	}
	return live, absent, true
}
