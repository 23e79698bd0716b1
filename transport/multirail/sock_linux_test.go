package multirail

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// openFDs counts this process's open descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(es)
}

// TestSockCloseMidTraffic closes both Links of a loopback pair while
// Sends of small and long messages and polling Recvs are under way on
// each side: every call returns (ErrClosed, ErrRailsDown or a context
// error, never a hang), and once Close has returned the Links hold no
// descriptor, neither the duplicates they read nor the net.Conns New
// closed.
func TestSockCloseMidTraffic(t *testing.T) {
	before := openFDs(t)
	a, b := tcpPair(t, 2, Config{Poll: true})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for _, l := range []*Link{a, b} {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				n := 16
				if i%7 == 0 {
					n = 3 << 20 // sliced, acknowledged before Send returns
				}
				if err := l.Send(ctx, make([]byte, n)); err != nil {
					errs <- err
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			for {
				if _, err := l.Recv(ctx); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	a.Close()
	b.Close()
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, ErrClosed) && !errors.Is(err, ErrRailsDown) {
			t.Errorf("a call ended with %v, want ErrClosed or ErrRailsDown", err)
		}
	}
	if after := openFDs(t); after != before {
		t.Errorf("%d descriptors open after Close, %d before the Links", after, before)
	}
}

// sockPair makes two socks joined over the loopback interface.
func sockPair(t *testing.T) (x, y *sock) {
	t.Helper()
	c, d := loopbackConns(t)
	if x, y = newSock(c), newSock(d); x == nil || y == nil {
		t.Fatal("a loopback TCP connection gave no sock")
	}
	t.Cleanup(func() { x.close(); y.close() })
	return x, y
}

// readAll reads s until the end of its stream, waiting in poll(2)
// whenever it is empty.
func readAll(s *sock) ([]byte, error) {
	var out []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := s.read(buf)
		out = append(out, buf[:n]...)
		switch {
		case errors.Is(err, io.EOF):
			return out, nil
		case errors.Is(err, syscall.EAGAIN):
			if err := s.waitReadable(); err != nil {
				return out, err
			}
		case err != nil:
			return out, err
		}
	}
}

// TestSockWrites: a write and a vectored write, each far larger than
// the socket's buffer, arrive whole and in order although the socket is
// non-blocking (the writer waits in poll(2) for room); the reader sees
// the end of the stream once the writer shuts down, and a closed sock
// refuses calls instead of using a descriptor that may be another's.
func TestSockWrites(t *testing.T) {
	x, y := sockPair(t)
	long := make([]byte, 8<<20)
	for i := range long {
		long[i] = byte(i / 7)
	}
	got := make(chan []byte, 1)
	go func() {
		b, err := readAll(y)
		if err != nil {
			t.Errorf("reading: %v", err)
		}
		got <- b
	}()
	if err := x.write(long[:5<<20]); err != nil {
		t.Fatal(err)
	}
	if err := x.writev([][]byte{long[5<<20 : 5<<20+3], nil, long[5<<20+3:]}); err != nil {
		t.Fatal(err)
	}
	x.shutdown()
	if b := <-got; !bytes.Equal(b, long) {
		t.Errorf("received %d bytes, want the %d written, in order", len(b), len(long))
	}
	x.close()
	if err := x.write([]byte("late")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("a write after close: %v, want net.ErrClosed", err)
	}
	if _, err := x.read(make([]byte, 4)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("a read after close: %v, want net.ErrClosed", err)
	}
}

// TestConsume: consume drops exactly the bytes a short writev wrote,
// whole buffers first, then the front of the next.
func TestConsume(t *testing.T) {
	bufs := func() [][]byte { return [][]byte{[]byte("abc"), []byte("defgh"), []byte("ij")} }
	for _, c := range []struct {
		n    int
		want string
	}{{0, "abc|defgh|ij"}, {2, "c|defgh|ij"}, {3, "defgh|ij"}, {4, "efgh|ij"}, {9, "j"}, {10, ""}} {
		var parts []string
		for _, b := range consume(bufs(), c.n) {
			parts = append(parts, string(b))
		}
		if got := strings.Join(parts, "|"); got != c.want {
			t.Errorf("consume(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
