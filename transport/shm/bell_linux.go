package shm

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A rank sleeps on its doorbell: a FIFO next to the segment that it reads
// through Go's network poller, and that a rank waking it writes a byte to.
// It used to sleep on a futex in the segment, but a futex wait is a
// system call that keeps the goroutine's P (processor) until the runtime's
// monitor takes it back, which on an otherwise busy process it does only
// after up to ten milliseconds: on a rank with one P (bound to one CPU)
// every other goroutine — the program's own work — stopped for that long
// whenever the receive goroutine went to sleep. A read from the poller
// parks the goroutine and frees its P at once (docs/design/shm.md,
// "Receiving, polling and sleeping"). The word in the segment stays: it
// is how a rank announces that it sleeps (layout.go's Dekker pattern),
// and only a waker that clears it rings, so a bell rings once per sleep
// at most, plus a stale ring when a sleep timed out just as a waker
// cleared the word, which only makes the next sleep look once more.

// doorbell is this rank's end of its FIFO.
type doorbell struct {
	f    *os.File // opened read-write, so that it never sees end of file
	path string
}

// bellPath returns the FIFO of rank's doorbell for the segment at seg.
func bellPath(seg string, rank int) string { return seg + ".bell." + strconv.Itoa(rank) }

// openDoorbell makes (or reuses) this rank's FIFO at path, private to
// this user, and opens it for the poller.
func openDoorbell(path string) (*doorbell, error) {
	if err := unix.Mkfifo(path, 0o600); err != nil && !errors.Is(err, unix.EEXIST) {
		return nil, fmt.Errorf("shm: doorbell %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("shm: doorbell: %w", err)
	}
	if err := checkBell(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("shm: doorbell %s: %w", path, err)
	}
	b := &doorbell{f: f, path: path}
	b.drain()
	return b, nil
}

// checkBell refuses a doorbell that is not a FIFO of this user's that
// only this user may open: another user could otherwise make one first
// and ring it, or read the rings.
func checkBell(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case fi.Mode().Type() != os.ModeNamedPipe:
		return fmt.Errorf("not a FIFO (%v)", fi.Mode())
	case !ok || int(st.Uid) != os.Getuid():
		return fmt.Errorf("owned by another user")
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("mode %v: others may open it", fi.Mode().Perm())
	}
	return nil
}

// wait blocks until the bell rings or d passes; the goroutine is parked
// in the poller meanwhile and holds no P. Rings that came earlier make it
// return at once.
func (b *doorbell) wait(d time.Duration) {
	if err := b.f.SetReadDeadline(time.Now().Add(d)); err != nil {
		time.Sleep(min(d, time.Millisecond)) // not pollable: nap instead
		return
	}
	var buf [64]byte
	b.f.Read(buf[:]) //nolint:errcheck // a timeout or a ring: the caller polls either way
}

// drain takes every ring waiting in the FIFO without blocking.
func (b *doorbell) drain() {
	b.f.SetReadDeadline(time.Now()) //nolint:errcheck // not pollable: nothing to drain
	var buf [64]byte
	for {
		if n, err := b.f.Read(buf[:]); err != nil || n < len(buf) {
			return
		}
	}
}

// close closes and removes the FIFO.
func (b *doorbell) close() {
	b.f.Close()
	os.Remove(b.path)
}

// release closes the FIFO and leaves it in place.
func (b *doorbell) release() { b.f.Close() }

// openBell opens rank's doorbell to ring it: read-write, so that opening
// never fails for want of a reader and ringing a bell whose rank is gone
// never raises SIGPIPE. It returns -1 when the FIFO is not there or not
// this user's own.
func openBell(path string) int {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO || int(st.Uid) != os.Getuid() || st.Mode&0o077 != 0 {
		unix.Close(fd)
		return -1
	}
	return fd
}

// ownFIFO reports whether path is a FIFO of this user's (not following a
// symbolic link), as a doorbell is.
func ownFIFO(path string) bool {
	var st unix.Stat_t
	return unix.Lstat(path, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO && int(st.Uid) == os.Getuid()
}

// ringBell writes one byte to the bell at fd, without blocking: a full FIFO
// has rung already. The call is raw: it never blocks,
// and the scheduler need not hand the caller's P away.
func ringBell(fd int) {
	one := byte(1)
	unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&one)), 1)
}

func closeBell(fd int) { unix.Close(fd) }
