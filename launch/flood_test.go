package launch

import (
	"context"
	"encoding/binary"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// serveRoot starts rank 0 of a 4-rank job on a goroutine and waits until
// it listens; wait returns its book and error.
func serveRoot(t *testing.T, ctx context.Context, b Bootstrap) (info Info, wait func() (Book, error)) {
	t.Helper()
	info = Info{Size: 4, Launcher: Plexus, JobID: "t", Root: freeAddr(t), Secret: secret16()}
	var book Book
	var err error
	var wg sync.WaitGroup
	wg.Go(func() { book, err = b.Join(ctx, info, "data-0") })
	waitListening(t, info.Root)
	return info, func() (Book, error) { wg.Wait(); return book, err }
}

// dialMany opens n connections to addr, closed when the test ends.
func dialMany(t *testing.T, addr string, n int) []net.Conn {
	t.Helper()
	conns := make([]net.Conn, n)
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		t.Cleanup(func() { c.Close() })
		conns[i] = c
	}
	return conns
}

// closedWithin counts the connections the other end closes within d.
func closedWithin(conns []net.Conn, d time.Duration) int {
	var n atomic.Int32
	var wg sync.WaitGroup
	end := time.Now().Add(d)
	for _, c := range conns {
		wg.Go(func() {
			c.SetReadDeadline(end)
			var buf [256]byte
			for {
				if _, err := c.Read(buf[:]); err != nil {
					if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
						n.Add(1)
					}
					return
				}
			}
		})
	}
	wg.Wait()
	return int(n.Load())
}

// TestJoinThroughAFlood: hundreds of silent connections hold at most a
// bounded number of places at rank 0, the job's ranks still register at
// once, and the refusals write a bounded number of log lines.
func TestJoinThroughAFlood(t *testing.T) {
	var logs lockedBuffer
	b := Bootstrap{Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	info, wait := serveRoot(t, ctx, b)
	const n = 600
	conns := dialMany(t, info.Root, n)
	if closed := closedWithin(conns, 500*time.Millisecond); closed < n-maxAdmittingPerSource {
		t.Errorf("%d of %d silent connections from one address were dropped, want at least %d", closed, n, n-maxAdmittingPerSource)
	}
	start := time.Now()
	got, errs := joinAll(ctx, b, info, []int{1, 2, 3})
	got[0], errs[0] = wait()
	wantBooks(t, got, errs)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the ranks took %v to register through the flood", d)
	}
	if lines := strings.Count(logs.String(), "\n"); lines > 20 {
		t.Errorf("%d log lines for %d refusals, want at most 20", lines, n)
	}
}

// TestJoinRefusesLongFrames: a stranger announcing a frame longer than
// any registration is dropped at once, before rank 0 allocates it.
func TestJoinRefusesLongFrames(t *testing.T) {
	var logs lockedBuffer
	b := Bootstrap{Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	info, wait := serveRoot(t, ctx, b)
	conns := dialMany(t, info.Root, 20)
	for _, c := range conns {
		c.Write(binary.BigEndian.AppendUint32(nil, 60000))
	}
	if closed := closedWithin(conns, time.Second); closed != len(conns) {
		t.Errorf("%d of %d connections announcing 60000 bytes dropped within a second", closed, len(conns))
	}
	cancel()
	wait()
}
