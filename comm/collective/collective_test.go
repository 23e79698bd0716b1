package collective

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/tree"
)

// cases are the communicator settings every operation is checked under:
// measured and placed models, single and paired trees, a root off rank 0,
// and pieces small enough that most buffers travel in several.
var cases = []struct {
	name string
	cfg  Config
}{
	{"adaptive/measure", Config{Samples: 3}},
	{"best/placement/pieces=256", Config{Topology: tree.Best, Model: Placement, MaxMessage: 256}},
	{"binary/root=auto/pieces=64", Config{Topology: tree.Binary, Model: Placement, Root: tree.AutoRoot, MaxMessage: 64}},
}

func TestCollectives(t *testing.T) {
	for _, tr := range []struct {
		name  string
		sizes []int
	}{{"twin", []int{1, 2, 3, 4, 5}}, {"tcp", []int{3}}, {"shm", []int{2, 3}}, {"serial", []int{2, 3}}} {
		if makers[tr.name] == nil {
			continue
		}
		for _, cs := range cases {
			for _, n := range tr.sizes {
				t.Run(fmt.Sprintf("transport=%s/%s/ranks=%d", tr.name, cs.name, n), func(t *testing.T) {
					f := makers[tr.name](t, n)
					ctx := testCtx(t)
					comms := newComms(t, ctx, f.ws, cs.cfg)
					stop := func() {}
					if tr.name != "serial" { // its worlds take one goroutine at a time
						stop = userTraffic(t, ctx, f.ws)
					}
					if err := eachRank(n, func(r int) error { return allOps(ctx, comms[r]) }); err != nil {
						t.Fatal(err)
					}
					stop()
				})
			}
		}
	}
}

// roundsOf scales a test's length down under -short.
func roundsOf(full int) int {
	if testing.Short() {
		return max(2, full/5)
	}
	return full
}

// sizesOf are the buffer lengths, cycled through by round.
var sizesOf = []int{0, 8, 64, 200, 1000}

// allOps runs rounds of every collective, rooted everywhere in turn, and
// checks each result against the sequential reference.
func allOps(ctx context.Context, c *Comm) error {
	for r := range roundsOf(30) {
		root, n := r%c.Size(), sizesOf[r%len(sizesOf)]
		steps := []func() error{
			func() error { return checkBroadcast(ctx, c, root, r, n) },
			func() error { return checkReduce(ctx, c, root, r, n/8) },
			func() error { return checkAllreduce(ctx, c, r, n/8) },
			func() error { return checkGather(ctx, c, root, r, n) },
			func() error { return checkAllgather(ctx, c, r, n) },
			func() error { return c.Barrier(ctx) },
		}
		for i, step := range steps {
			if err := step(); err != nil {
				return fmt.Errorf("round %d step %d: %w", r, i, err)
			}
		}
	}
	return nil
}

// data is rank's n bytes in round r.
func data(rank, r, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rank*53 + r*7 + i*13 + i>>8)
	}
	return b
}

// vec is rank's vector of n values in round r; some negative.
func vec(rank, r, n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64((rank+1)*(r+i+2)) * int64(1-2*((rank+i)%2))
	}
	return v
}

func sumVec(size, r, n int) []int64 {
	acc := make([]int64, n)
	for rank := range size {
		for i, x := range vec(rank, r, n) {
			acc[i] += x
		}
	}
	return acc
}

func checkBroadcast(ctx context.Context, c *Comm, root, r, n int) error {
	buf := make([]byte, n)
	if c.Rank() == root {
		copy(buf, data(root, r, n))
	}
	if err := c.Broadcast(ctx, root, buf); err != nil {
		return err
	}
	if !bytes.Equal(buf, data(root, r, n)) {
		return fmt.Errorf("bcast from %d of %d bytes differs", root, n)
	}
	return nil
}

func checkReduce(ctx context.Context, c *Comm, root, r, n int) error {
	out := make([]int64, n)
	if err := ReduceValues(ctx, c, root, vec(c.Rank(), r, n), out, func(a, b int64) int64 { return a + b }); err != nil {
		return err
	}
	if want := sumVec(c.Size(), r, n); c.Rank() == root && fmt.Sprint(out) != fmt.Sprint(want) {
		return fmt.Errorf("reduce to %d: %v, want %v", root, out, want)
	}
	return nil
}

// checkAllreduce sums on the bytes directly, to test the []byte form.
func checkAllreduce(ctx context.Context, c *Comm, r, n int) error {
	in, out := make([]byte, 8*n), make([]byte, 8*n)
	for i, x := range vec(c.Rank(), r, n) {
		binary.LittleEndian.PutUint64(in[8*i:], uint64(x))
	}
	add := func(acc, in []byte) {
		for i := 0; i < len(acc); i += 8 {
			binary.LittleEndian.PutUint64(acc[i:], binary.LittleEndian.Uint64(acc[i:])+binary.LittleEndian.Uint64(in[i:]))
		}
	}
	if err := c.Allreduce(ctx, in, out, add); err != nil {
		return err
	}
	for i, want := range sumVec(c.Size(), r, n) {
		if got := int64(binary.LittleEndian.Uint64(out[8*i:])); got != want {
			return fmt.Errorf("allreduce element %d: %d, want %d", i, got, want)
		}
	}
	return nil
}

func gatheredData(size, r, n int) []byte {
	var all []byte
	for rank := range size {
		all = append(all, data(rank, r, n)...)
	}
	return all
}

func checkGather(ctx context.Context, c *Comm, root, r, n int) error {
	var out []byte
	if c.Rank() == root {
		out = make([]byte, c.Size()*n)
	}
	if err := c.Gather(ctx, root, data(c.Rank(), r, n), out); err != nil {
		return err
	}
	if c.Rank() == root && !bytes.Equal(out, gatheredData(c.Size(), r, n)) {
		return fmt.Errorf("gather to %d of %d-byte blocks differs", root, n)
	}
	return nil
}

func checkAllgather(ctx context.Context, c *Comm, r, n int) error {
	out := make([]byte, c.Size()*n)
	if err := c.Allgather(ctx, data(c.Rank(), r, n), out); err != nil {
		return err
	}
	if !bytes.Equal(out, gatheredData(c.Size(), r, n)) {
		return fmt.Errorf("allgather of %d-byte blocks differs", n)
	}
	return nil
}

// userTraffic runs point-to-point traffic on every world while the
// collectives run: each rank sends numbered messages to the next and
// receives with AnySource and AnyTag, so that a collective message taken
// by a user receive, or a user message taken by a collective, shows. The
// returned stop waits for the traffic and checks every message arrived
// exactly once, intact.
func userTraffic(t *testing.T, ctx context.Context, ws []*comm.World) (stop func()) {
	n := len(ws)
	if n < 2 {
		return func() {}
	}
	const msgs = 200
	errc := make(chan error, 1)
	go func() {
		errc <- eachRank(n, func(r int) error {
			go func() {
				for i := range msgs {
					ws[r].Send(ctx, (r+1)%n, i, data(r, i, 16))
				}
			}()
			return receiveAll(ctx, ws[r], (r+n-1)%n, msgs)
		})
	}()
	return func() {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
}

// receiveAll receives msgs user messages from src with wildcards, in
// order, and checks them.
func receiveAll(ctx context.Context, w *comm.World, src, msgs int) error {
	buf := make([]byte, 64)
	for i := range msgs {
		st, err := w.Recv(ctx, comm.AnySource, comm.AnyTag, buf)
		if err != nil {
			return err
		}
		if st.Source != src || st.Tag != i || !bytes.Equal(buf[:st.Len], data(src, i, 16)) {
			return fmt.Errorf("user message %d: got source %d tag %d %x", i, st.Source, st.Tag, buf[:st.Len])
		}
	}
	return nil
}
