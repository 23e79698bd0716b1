package comm

import (
	"fmt"
	"testing"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// TestDeliverRun: a run of eager frames meets the receives posted for its
// key, in order, and the frames beyond them are stored for the receives
// posted later, still in order; with a wildcard receive posted, the run
// goes one frame at a time and the wildcard gets the first.
func TestDeliverRun(t *testing.T) {
	ws, _ := twinWorlds(t, 2, Config{})
	w := ws[1]
	ctx := testCtx(t)
	h := frame.Header{Kind: frame.Eager, Tag: 4}
	run := func(from, n int) [][]byte {
		var ps [][]byte
		for i := range n {
			ps = append(ps, []byte(fmt.Sprint(from+i)))
		}
		return ps
	}
	recvs := func(n, peer int) []*Request {
		var rs []*Request
		for range n {
			r, err := w.Irecv(peer, 4, make([]byte, 8))
			if err != nil {
				t.Fatal(err)
			}
			rs = append(rs, r)
		}
		return rs
	}
	check := func(rs []*Request, from int) {
		t.Helper()
		for i, r := range rs {
			st, err := r.Wait(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(r.buf[:st.Len]); got != fmt.Sprint(from+i) {
				t.Fatalf("receive %d got %q, want %q", i, got, fmt.Sprint(from+i))
			}
		}
	}
	posted := recvs(3, 0)
	w.deliverRun(0, h, run(0, 5)) // three meet their receives, two are stored
	check(posted, 0)
	check(recvs(2, 0), 3)
	if u := w.UnexpectedBytes(); u != 0 {
		t.Errorf("%d unexpected bytes left", u)
	}

	wild, err := w.Irecv(AnySource, AnyTag, make([]byte, 8))
	if err != nil {
		t.Fatal(err)
	}
	exact := recvs(1, 0)
	w.deliverRun(0, h, run(10, 2))
	check([]*Request{wild}, 10)
	check(exact, 11)
}
