package tcp

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/rail"
	"github.com/plexus-hpc/plexus/transport/frame"
	"github.com/plexus-hpc/plexus/transport/multirail"
)

// The rails of these tests are loopback addresses, one /24 per rail
// (127.0.k.r is rail k of rank r): the whole of 127/8 reaches lo, so each
// rail is a connection between two addresses of its own, as between hosts.

// received collects the frames a rank delivers, checking each Data
// frame's contents as it comes and counting every (Seq, offset) it sees.
type received struct {
	mu    sync.Mutex
	seen  map[[2]uint64]int
	bad   []string
	eager int
	got   chan struct{}
}

func newReceived() *received {
	return &received{seen: map[[2]uint64]int{}, got: make(chan struct{}, 1024)}
}

func (r *received) deliver(peer int, h frame.Header, p []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if h.Kind == frame.Eager {
		r.eager++
		return
	}
	r.seen[[2]uint64{h.Seq, h.Aux}]++
	if i := firstWrong(p, h.Seq); i >= 0 || uint64(len(p)) != h.Aux {
		r.bad = append(r.bad, fmt.Sprintf("frame seq %d of %d bytes (announced %d): byte %d wrong", h.Seq, len(p), h.Aux, i))
	}
	r.got <- struct{}{}
}

// pattern fills a payload that tells every byte's place and its frame.
func pattern(n int, seq uint64) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(uint64(i)*31 + seq*7 + uint64(i>>12))
	}
	return b
}

func firstWrong(p []byte, seq uint64) int {
	for i, x := range p {
		if x != byte(uint64(i)*31+seq*7+uint64(i>>12)) {
			return i
		}
	}
	return -1
}

// railJob starts two ranks with rails rails each on loopback; rank 1
// delivers to rec.
func railJob(t *testing.T, rails int, rec *received, logger func(*Config)) []*Endpoint {
	t.Helper()
	eps, b := job(t, 2, func(c *Config) {
		for k := range rails {
			c.Rails = append(c.Rails, fmt.Sprintf("127.0.%d.%d/24", 10+k, 1+c.Rank))
		}
		c.MaxPayload = 16 << 20
		if c.Rank == 1 {
			c.Deliver = rec.deliver
		}
		if logger != nil {
			logger(c)
		}
	})
	for r, ep := range eps {
		if len(ep.RailAddrs()) != rails {
			t.Fatalf("rank %d listens on rails %v, want %d", r, ep.RailAddrs(), rails)
		}
		b.set(r, JoinAddr(ep.Addr(), ep.RailAddrs()))
	}
	return eps
}

// waitFrames waits for n Data frames at rec.
func waitFrames(t *testing.T, rec *received, n int) {
	t.Helper()
	for range n {
		select {
		case <-rec.got:
		case <-time.After(20 * time.Second):
			t.Fatalf("a Data frame did not arrive")
		}
	}
}

// sizes are the payloads sent; -short keeps the smaller ones.
func railSizes() []int {
	if testing.Short() {
		return []int{1 << 20, 3<<20 + 17, 8 << 20}
	}
	return []int{1 << 20, 3<<20 + 17, 8 << 20, 16 << 20, 5<<20 + 1}
}

// checkOnce fails unless every frame in want arrived exactly once and
// intact.
func checkOnce(t *testing.T, rec *received, want map[[2]uint64]bool) {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, s := range rec.bad {
		t.Error(s)
	}
	for k := range want {
		if rec.seen[k] != 1 {
			t.Errorf("frame seq %d arrived %d times, want once", k[0], rec.seen[k])
		}
	}
	if len(rec.seen) != len(want) {
		t.Errorf("%d distinct frames arrived, want %d", len(rec.seen), len(want))
	}
}

// TestRailsSplitLongFrames sends Data frames of 1 to 16 MiB over three
// rails: each arrives once with its bytes intact, every rail carries part
// of them, and short frames keep the main connection.
func TestRailsSplitLongFrames(t *testing.T) {
	rec := newReceived()
	eps := railJob(t, 3, rec, nil)
	ctx := context.Background()
	want := map[[2]uint64]bool{}
	for i, n := range railSizes() {
		seq := uint64(i + 1)
		h := frame.Header{Kind: frame.Data, Seq: seq, Aux: uint64(n)} // Aux: the length, checked on arrival
		if err := eps[0].Send(ctx, 1, h, pattern(n, seq)); err != nil {
			t.Fatal(err)
		}
		want[[2]uint64{seq, uint64(n)}] = true
		if err := eps[0].Send(ctx, 1, frame.Header{Kind: frame.Eager, Aux: 3}, []byte("abc")); err != nil {
			t.Fatal(err)
		}
	}
	waitFrames(t, rec, len(want))
	checkOnce(t, rec, want)
	st := eps[0].RailStats()
	if st.Links != 1 || st.Frames != int64(len(want)) || st.Down != 0 {
		t.Errorf("rail stats %+v: want 1 link, %d frames, none down", st, len(want))
	}
	ls := eps[0].rails.peers[1].out.Load().Stats()
	for i, b := range ls.Bytes {
		if b == 0 {
			t.Errorf("rail %d carried nothing: bytes per rail %v", i, ls.Bytes)
		}
	}
	if s := eps[1].RailStats(); s.Links != 0 || s.Frames != 0 {
		t.Errorf("rank 1 sent nothing, but its rail stats are %+v", s)
	}
}

// breakAfter closes its connection once more than after bytes were
// written through it, failing that write: a rail cut mid-transfer.
type breakAfter struct {
	net.Conn
	after   int64
	written atomic.Int64
}

func (c *breakAfter) Write(b []byte) (int, error) {
	if c.written.Add(int64(len(b))) > c.after {
		c.Conn.Close()
		return 0, net.ErrClosed
	}
	return c.Conn.Write(b)
}

// TestRailClosedMidTransfer cuts one of three rails after 2 MiB while
// 8–16 MiB frames cross: its chunks go again on the other two, every
// frame arrives once and intact, and the failure is counted and logged.
func TestRailClosedMidTransfer(t *testing.T) {
	rec := newReceived()
	var sink logSink
	eps := railJob(t, 3, rec, func(c *Config) {
		if c.Rank == 0 {
			c.Logger = sink.Logger()
		}
	})
	eps[0].rails.wrap = func(i int, c net.Conn) net.Conn {
		if i == 1 {
			return &breakAfter{Conn: c, after: 2 << 20}
		}
		return c
	}
	ctx := context.Background()
	want := map[[2]uint64]bool{}
	for i, n := range []int{8 << 20, 16<<20 - 3, 8 << 20} {
		seq := uint64(100 + i)
		if err := eps[0].Send(ctx, 1, frame.Header{Kind: frame.Data, Seq: seq, Aux: uint64(n)}, pattern(n, seq)); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		want[[2]uint64{seq, uint64(n)}] = true
	}
	waitFrames(t, rec, len(want))
	checkOnce(t, rec, want)
	sink.waitFor(t, "rail down") // reported once the peer is seen not to be closing
	st := eps[0].RailStats()
	if st.Down < 1 || st.Resent < 1 || st.Frames != int64(len(want)) {
		t.Errorf("rail stats %+v: want a rail down, chunks resent, %d frames", st, len(want))
	}
}

// TestRailsPairing checks which rails pair: by network, in the local
// order, never with the local rail's own address (a peer on this host).
func TestRailsPairing(t *testing.T) {
	local, err := parseRails([]string{"10.1.1.1/24", "10.1.2.1/24", "10.1.3.1/24"})
	if err != nil {
		t.Fatal(err)
	}
	got := pairRails(local, []string{"10.1.2.9:7", "10.9.9.9:7", "10.1.1.9:8", "10.1.3.1:5", "bad"})
	want := []multirail.Addr{{Local: "10.1.1.1", Remote: "10.1.1.9:8"}, {Local: "10.1.2.1", Remote: "10.1.2.9:7"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pairs %v, want %v", got, want)
	}
	main, rails := splitAddr(JoinAddr("10.0.0.1:5", []string{"10.1.1.1:6", "10.1.2.1:7"}))
	if main != "10.0.0.1:5" || strings.Join(rails, ",") != "10.1.1.1:6,10.1.2.1:7" {
		t.Errorf("split %q %v", main, rails)
	}
	if JoinAddr("10.0.0.1:5", nil) != "10.0.0.1:5" {
		t.Errorf("an entry without rails changed: %q", JoinAddr("10.0.0.1:5", nil))
	}
	if _, err := parseRails([]string{"10.1.1.1"}); err == nil {
		t.Errorf("a rail without its prefix was accepted")
	}
}

// TestRailsDeliverBeforeLost closes the sender as soon as its long frames
// are sent, while the receiver's Deliver is slow (frames wait in its
// rails' inbox): the receiver must deliver every one of them before it
// reports the sender lost, and nothing after.
func TestRailsDeliverBeforeLost(t *testing.T) {
	rec := newReceived()
	var atLost atomic.Int64
	lost := make(chan struct{})
	eps := railJob(t, 2, rec, func(c *Config) {
		if c.Rank == 1 {
			c.Deliver = func(peer int, h frame.Header, p []byte) {
				if h.Kind == frame.Data {
					time.Sleep(20 * time.Millisecond)
				}
				rec.deliver(peer, h, p)
			}
			c.Lost = func(int, error) {
				rec.mu.Lock()
				atLost.Store(int64(len(rec.seen)))
				rec.mu.Unlock()
				close(lost)
			}
		}
	})
	ctx := context.Background()
	// An eager frame opens the main connection, whose Bye reports the
	// close; comm's RTS always has.
	if err := eps[0].Send(ctx, 1, frame.Header{Kind: frame.Eager, Aux: 1}, []byte{1}); err != nil {
		t.Fatal(err)
	}
	const frames = 6
	for i := range frames {
		seq := uint64(200 + i)
		n := 2<<20 + i
		if err := eps[0].Send(ctx, 1, frame.Header{Kind: frame.Data, Seq: seq, Aux: uint64(n)}, pattern(n, seq)); err != nil {
			t.Fatal(err)
		}
	}
	eps[0].Close()
	select {
	case <-lost:
	case <-time.After(10 * time.Second):
		t.Fatal("rank 0's close was not reported")
	}
	if n := atLost.Load(); n != frames {
		t.Errorf("%d of %d frames delivered when rank 0 was reported lost", n, frames)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.bad) > 0 || len(rec.seen) != frames {
		t.Errorf("frames %d, bad %v", len(rec.seen), rec.bad)
	}
}

// muteConn swallows what is written to it: a receiver whose
// acknowledgements never leave.
type muteConn struct{ net.Conn }

func (c muteConn) Write(b []byte) (int, error) { return len(b), nil }

// TestRailsPeerClosesBeforeAck has the receiver close its Endpoint after
// it delivered a long frame whose acknowledgement never left (as when it
// closes before its rail's writer runs): the sender's Send succeeds, as
// on the main connection, and logs no rail down; the frame arrived once.
func TestRailsPeerClosesBeforeAck(t *testing.T) {
	rec := newReceived()
	var sink logSink
	eps := railJob(t, 2, rec, func(c *Config) {
		if c.Rank == 0 {
			c.Logger = sink.Logger()
		}
	})
	eps[1].rails.wrapIn = func(_ int, c net.Conn) net.Conn { return muteConn{c} }
	ctx := context.Background()
	if err := eps[0].Send(ctx, 1, frame.Header{Kind: frame.Eager, Aux: 1}, []byte{1}); err != nil {
		t.Fatal(err)
	}
	const n = 1 << 20
	done := make(chan error, 1)
	go func() { done <- eps[0].Send(ctx, 1, frame.Header{Kind: frame.Data, Seq: 7, Aux: n}, pattern(n, 7)) }()
	waitFrames(t, rec, 1)
	eps[1].Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Send of the frame the peer had: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Send did not return after the peer closed")
	}
	checkOnce(t, rec, map[[2]uint64]bool{{7, n}: true})
	time.Sleep(2 * closeLinger) // a rail down would be reported by now
	if strings.Contains(sink.String(), "rail down") || eps[0].RailStats().Down != 0 {
		t.Errorf("a peer's close was reported as a rail down:\n%s", sink.String())
	}
}

// TestRailsProfileFile gives the sender a profile file that names its
// rails (by addresses, the ports left out): the Link takes its profiles
// from it rather than sampling, and the frames arrive as before.
func TestRailsProfileFile(t *testing.T) {
	var profiles []rail.Profile
	for k, bw := range []float64{300e6, 100e6} {
		var s []rail.Sample
		for n := 4; n <= 8<<20; n *= 2 {
			s = append(s, rail.Sample{Size: n, Time: 20*time.Microsecond + time.Duration(float64(n)/bw*1e9)})
		}
		p, err := rail.NewProfile(fmt.Sprintf("127.0.%d.1>127.0.%d.2:9", 10+k, 10+k), s)
		if err != nil {
			t.Fatal(err)
		}
		profiles = append(profiles, p)
	}
	path := filepath.Join(t.TempDir(), "rails.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := rail.WriteFile(f, rail.File{Local: "a", Remote: "b", Rails: profiles}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rec := newReceived()
	var sink logSink
	eps := railJob(t, 2, rec, func(c *Config) {
		if c.Rank == 0 {
			c.RailProfiles, c.Logger = path, sink.Logger()
		}
	})
	const n = 4 << 20
	if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Data, Seq: 9, Aux: n}, pattern(n, 9)); err != nil {
		t.Fatal(err)
	}
	waitFrames(t, rec, 1)
	checkOnce(t, rec, map[[2]uint64]bool{{9, n}: true})
	sink.waitFor(t, "profiles from "+path)
	// 3 : 1 predicted rates: the first split gives the first rail three
	// quarters (before the Link learns anything).
	if b := eps[0].rails.peers[1].out.Load().Stats().Bytes; b[0] < 2*b[1] {
		t.Errorf("bytes per rail %v: want the 300 MB/s rail to carry about three times the other's", b)
	}
}
