package shm

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"
)

// segment is one process's mapping of a job's segment file.
type segment struct {
	layout
	mem     []byte
	path    string
	file    *os.File // kept open for the monitor's look at its size (fault.go)
	created bool
}

// SegmentPath returns the file a job's segment lives in: dir/plexus-<job>-<uid>,
// with characters other than letters, digits, '.', '_' and '-' in the job
// id replaced by '_' (the header's job hash tells such jobs apart).
func SegmentPath(dir, job string) string {
	clean := strings.Map(func(r rune) rune {
		if r < 0x80 && (r == '.' || r == '_' || r == '-' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, job)
	return filepath.Join(dir, "plexus-"+clean+"-"+strconv.Itoa(os.Getuid()))
}

// RemoveSegment removes a job's segment file and its ranks' doorbells
// (FIFOs named after it), for a launcher cleaning up after a job whose
// ranks may have died before they could. Files that are not there are
// not an error.
func RemoveSegment(dir, job string) error {
	path := SegmentPath(dir, job)
	bells, _ := filepath.Glob(path + ".bell.*") // a bad pattern cannot come from SegmentPath
	var errs []error
	for _, f := range append([]string{path}, bells...) {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// openSegment creates the job's segment, or maps the one another rank
// created once its header is complete. An existing file must be private
// to this user (openPrivate) before anything of it is read.
func openSegment(cfg *Config) (*segment, error) {
	s := &segment{layout: newLayout(cfg.Size, cfg.Slots), path: SegmentPath(cfg.Dir, cfg.JobID)}
	f, err := os.OpenFile(s.path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case err == nil:
		s.created = true
		err = s.create(f, cfg.JobID)
	case errors.Is(err, fs.ErrExist):
		f, err = openPrivate(s.path, os.O_RDWR)
		if err == nil {
			err = s.attach(f, cfg.JobID, cfg.AttachTimeout)
		}
	}
	if err == nil {
		s.file = f
		return s, nil
	}
	if f != nil {
		f.Close()
	}
	switch {
	case errors.Is(err, ErrBadSegment):
		return nil, fmt.Errorf("%w (file %s)", err, s.path)
	default:
		return nil, fmt.Errorf("shm: %w", err)
	}
}

// create sizes and maps the file this rank just created, and writes its
// header. The mode is set again, since the umask may have taken bits off
// the 0600 that attaching ranks demand.
func (s *segment) create(f *os.File, job string) error {
	err := f.Chmod(0o600)
	if err == nil {
		err = f.Truncate(int64(s.segBytes))
	}
	if err != nil {
		os.Remove(s.path)
		return err
	}
	mem, err := mapFile(f, s.segBytes)
	if err != nil {
		os.Remove(s.path)
		return err
	}
	s.mem = mem
	s.writeHeader(mem, job)
	return nil
}

// attach waits until the creator has sized the file and stored the magic,
// then validates the header and maps the file.
func (s *segment) attach(f *os.File, job string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		hdr, size, err := readHeader(f)
		if err != nil {
			return err
		}
		if atomic.LoadUint64(word(hdr, magicOff)) != 0 || time.Now().After(deadline) {
			if err := s.checkHeader(hdr, job); err != nil {
				return err
			}
			if size != int64(s.segBytes) {
				return fmt.Errorf("%w: file has %d bytes, header says %d", ErrBadSegment, size, s.segBytes)
			}
			s.mem, err = mapFile(f, s.segBytes)
			return err
		}
		time.Sleep(time.Millisecond)
	}
}

// readHeader reads the header line (zeros if the file is shorter) and the
// file's size.
func readHeader(f *os.File) ([]byte, int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	hdr := asBytes(make([]uint64, line/8)) // 8-byte aligned for word()
	if fi.Size() >= line {
		if _, err := f.ReadAt(hdr, 0); err != nil {
			return nil, 0, err
		}
	}
	return hdr, fi.Size(), nil
}

// close releases the segment's memory (retire: late readers of its words
// do not fault) and, if remove, unlinks its file.
func (s *segment) close(remove bool) error {
	s.file.Close()
	if remove {
		if err := os.Remove(s.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("shm: %w", err)
		}
	}
	return retire(s.mem)
}

// rank-line accessors; any rank may load, only the owner stores (see
// layout.go's invariants).
func (s *segment) pid(r int) *uint64        { return word(s.mem, s.rankLine(r)+pidOff) }
func (s *segment) beat(r int) *uint64       { return word(s.mem, s.rankLine(r)+beatOff) }
func (s *segment) state(r int) *uint64      { return word(s.mem, s.rankLine(r)+stateOff) }
func (s *segment) wait(r int) *uint32       { return word32(s.mem, s.rankLine(r)+waitOff) }
func (s *segment) canaryAddr(r int) *uint64 { return word(s.mem, s.rankLine(r)+canaryAt) }
func (s *segment) canaryWant(r int) *uint64 { return word(s.mem, s.rankLine(r)+canaryVal) }
func (s *segment) pair(from, to int) *uint64 {
	return word(s.mem, s.pairWord(from, to))
}
func (s *segment) pull(reader, owner int) *uint64 {
	return word(s.mem, s.pullWord(reader, owner))
}

// signal returns the counter of signals from → to on slot.
func (s *segment) signal(from, to, slot int) *uint64 {
	return word(s.mem, s.signalAt(from, to, slot))
}

// ringRegion returns the region of the ring from → to.
func (s *segment) ringRegion(from, to int) []byte {
	off := s.ringAt(from, to)
	return s.mem[off : off+s.ringBytes : off+s.ringBytes]
}

// bulkData returns the data area of the bulk buffer from → to, and
// bulkConsumed its consumed word (bulk.go).
func (s *segment) bulkData(from, to int) []byte {
	off := s.bulkAt(from, to) + line
	return s.mem[off : off+bulkBytes : off+bulkBytes]
}

func (s *segment) bulkConsumed(from, to int) *uint64 {
	return word(s.mem, s.bulkAt(from, to))
}

// claim registers this process as rank r.
func (s *segment) claim(r int) error {
	pid := uint64(os.Getpid())
	if !atomic.CompareAndSwapUint64(s.pid(r), 0, pid) {
		old := atomic.LoadUint64(s.pid(r))
		return fmt.Errorf("shm: segment %s: rank %d already joined as pid %d (alive %v); a stale segment of an earlier run? see CleanStale",
			s.path, r, old, processAlive(int(old)))
	}
	atomic.StoreUint64(s.state(r), stateAlive)
	return nil
}

// allGone reports whether every rank has joined and is closed or dead, so
// the segment may be removed.
func (s *segment) allGone() bool {
	for r := range s.ranks {
		pid := atomic.LoadUint64(s.pid(r))
		if pid == 0 {
			return false
		}
		if atomic.LoadUint64(s.state(r)) != stateClosed && processAlive(int(pid)) {
			return false
		}
	}
	return true
}

// asBytes views words as bytes, 8-byte aligned as word() needs.
func asBytes(words []uint64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(words)*8)
}
