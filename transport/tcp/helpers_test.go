package tcp

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/internal/logtest"
	"github.com/plexus-hpc/plexus/transport/frame"
)

var testSecret = []byte("0123456789abcdef-test-secret")

// book is a test address book filled as endpoints start listening.
type book struct {
	mu    sync.Mutex
	addrs map[int]string
}

func (b *book) set(rank int, addr string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.addrs == nil {
		b.addrs = map[int]string{}
	}
	b.addrs[rank] = addr
}

func (b *book) lookup(rank int) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a, ok := b.addrs[rank]
	if !ok {
		return "", fmt.Errorf("rank %d not in the address book", rank)
	}
	return a, nil
}

// logSink collects log records so tests can assert on refusals.
type logSink struct{ logtest.Sink }

// waitFor waits until some line contains sub.
func (l *logSink) waitFor(t *testing.T, sub string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(l.String(), sub) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no log line contains %q; got:\n%s", sub, l.String())
}

// lostRec records Lost reports.
type lostRec struct {
	mu   sync.Mutex
	errs map[int]error
	ch   chan int
}

func newLostRec() *lostRec { return &lostRec{errs: map[int]error{}, ch: make(chan int, 64)} }

func (r *lostRec) lost(peer int, err error) {
	r.mu.Lock()
	r.errs[peer] = err
	r.mu.Unlock()
	r.ch <- peer
}

// job starts n endpoints of one job; tweak adjusts each config before
// Listen. All are closed when the test ends.
func job(t testing.TB, n int, tweak func(*Config)) ([]*Endpoint, *book) {
	t.Helper()
	b := &book{}
	eps := make([]*Endpoint, n)
	for r := range eps {
		cfg := Config{Rank: r, Size: n, JobID: "job-1", Secret: testSecret, Addrs: b.lookup,
			Deliver: func(int, frame.Header, []byte) {}, Logger: logtest.New(t)}
		if tweak != nil {
			tweak(&cfg)
		}
		ep, err := Listen(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ep.Close() })
		b.set(r, ep.Addr())
		eps[r] = ep
	}
	return eps, b
}

// fakeDialer connects to addr as rank claiming to be part of the job
// described by a and completes the handshake; it returns the raw socket.
func fakeDialer(t *testing.T, addr string, a authConf, want int) (net.Conn, *decoder, error) {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	dec := newDecoder(bufio.NewReader(nc), 1<<20)
	err = a.dialAuth(nc, dec, want)
	nc.SetDeadline(time.Time{})
	return nc, dec, err
}

// cut shuts c's socket without a Bye, as a crash would, whether or not c
// has started (and so detached) yet.
func cut(c *conn) {
	c.smu.Lock()
	c.aborted = true
	sk := c.sk
	c.smu.Unlock()
	sk.abort()
}

// sendFromGoroutines runs senders goroutines, goroutine g sending frames
// frames with send(g, i) for i from 0, and waits for them; a failed send
// fails t and ends its goroutine.
func sendFromGoroutines(t *testing.T, senders, frames int, send func(g int, i uint64) error) {
	var wg sync.WaitGroup
	for g := range senders {
		wg.Go(func() {
			for i := range uint64(frames) {
				if err := send(g, i); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
