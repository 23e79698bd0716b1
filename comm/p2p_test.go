package comm

import (
	"errors"
	"fmt"
	"testing"
)

// sizes returns message sizes around every protocol boundary for cfg.
func sizes(limit, chunk int) []int {
	return []int{0, 1, 8, 63, 64, 65, limit - msgOverhead, limit - 1, limit, limit + 1,
		chunk - 1, chunk, chunk + 1, 3*chunk + 17}
}

func TestSendRecvSizes(t *testing.T) { eachTransport(t, testSendRecvSizes) }

func testSendRecvSizes(t *testing.T, mk func(testing.TB, int, Config) fixture) {
	cfg := Config{EagerLimit: 4 << 10, ChunkSize: 16 << 10}
	ws := mk(t, 2, cfg).ws
	ctx := testCtx(t)
	for i, n := range sizes(cfg.EagerLimit, cfg.ChunkSize) {
		t.Run(fmt.Sprintf("size=%d", n), func(t *testing.T) {
			errc := make(chan error, 1)
			go func() { errc <- ws[0].Send(ctx, 1, i, payload(0, i, n)) }()
			buf := make([]byte, n)
			st, err := ws[1].Recv(ctx, 0, i, buf)
			if err != nil {
				t.Fatal(err)
			}
			if st != (Status{Source: 0, Tag: i, Len: n}) {
				t.Errorf("status %+v", st)
			}
			if err := check(buf, 0, i, n); err != nil {
				t.Error(err)
			}
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestSendToSelf(t *testing.T) {
	ws, _ := twinWorlds(t, 2, Config{EagerLimit: 1 << 10, ChunkSize: 4 << 10})
	ctx := testCtx(t)
	for _, n := range []int{0, 100, 1 << 10, 10 << 10} {
		r, err := ws[1].Irecv(1, 9, make([]byte, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := ws[1].Send(ctx, 1, 9, payload(1, 9, n)); err != nil {
			t.Fatal(err)
		}
		if st, err := r.Wait(ctx); err != nil || st.Len != n {
			t.Fatalf("size %d: %+v %v", n, st, err)
		}
		if err := check(r.buf, 1, 9, n); err != nil {
			t.Error(err)
		}
	}
}

func TestTruncation(t *testing.T) {
	cfg := Config{EagerLimit: 1 << 10, ChunkSize: 4 << 10}
	ws, _ := twinWorlds(t, 2, cfg)
	ctx := testCtx(t)
	for tag, n := range []int{10, 1000, 5000, 20000} {
		for _, short := range []int{0, n / 2} {
			go ws[0].Send(ctx, 1, tag, payload(0, tag, n))
			buf := make([]byte, short)
			st, err := ws[1].Recv(ctx, 0, tag, buf)
			if !errors.Is(err, ErrTruncated) || st.Len != n {
				t.Fatalf("size %d into %d: %+v %v, want ErrTruncated", n, short, st, err)
			}
			if err := check(buf, 0, tag, short); err != nil && short > 0 {
				t.Errorf("prefix: %v", err)
			}
		}
	}
	// The world goes on.
	go ws[0].Send(ctx, 1, 99, payload(0, 99, 8))
	buf := make([]byte, 8)
	if _, err := ws[1].Recv(ctx, 0, 99, buf); err != nil {
		t.Fatal(err)
	}
}

func TestWildcards(t *testing.T) { eachTransport(t, testWildcards) }

func testWildcards(t *testing.T, mk func(testing.TB, int, Config) fixture) {
	ws := mk(t, 3, Config{EagerLimit: 256}).ws
	ctx := testCtx(t)
	sent := make(chan error, 2)
	for src := 1; src <= 2; src++ {
		go func() { // each sender completes its sends, as MPI asks
			var reqs []*Request
			for tag, n := range []int{8, 5000} {
				r, err := ws[src].Isend(0, tag, payload(src, tag, n))
				if err != nil {
					sent <- err
					return
				}
				reqs = append(reqs, r)
			}
			_, err := Waitall(ctx, reqs...)
			sent <- err
		}()
	}
	seen := map[[2]int]bool{}
	for range 4 {
		buf := make([]byte, 8192)
		st, err := ws[0].Recv(ctx, AnySource, AnyTag, buf)
		if err != nil {
			t.Fatal(err)
		}
		if err := check(buf[:st.Len], st.Source, st.Tag, st.Len); err != nil {
			t.Error(err)
		}
		seen[[2]int{st.Source, st.Tag}] = true
	}
	if len(seen) != 4 {
		t.Errorf("received %v, want every (source, tag) once", seen)
	}
	for range 2 {
		if err := <-sent; err != nil {
			t.Fatal(err)
		}
	}
}

// TestWaitallNil checks that Waitall skips nil entries, as MPI skips
// MPI_REQUEST_NULL, wherever they are, the last included.
func TestWaitallNil(t *testing.T) {
	ws, _ := twinWorlds(t, 2, Config{})
	ctx := testCtx(t)
	for _, nilAt := range []int{0, 1, 2, -1} { // -1: every entry nil
		t.Run(fmt.Sprintf("nil=%d", nilAt), func(t *testing.T) {
			reqs := make([]*Request, 3)
			if nilAt >= 0 {
				r, err := ws[1].Irecv(0, 5, make([]byte, 8))
				if err != nil {
					t.Fatal(err)
				}
				if err := ws[0].Send(ctx, 1, 5, payload(0, 5, 8)); err != nil {
					t.Fatal(err)
				}
				for i := range reqs {
					if i != nilAt {
						reqs[i] = r
					}
				}
			}
			sts, err := Waitall(ctx, reqs...)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range reqs {
				want := Status{}
				if r != nil {
					want = Status{Source: 0, Tag: 5, Len: 8}
				}
				if sts[i] != want {
					t.Errorf("status %d: %+v, want %+v", i, sts[i], want)
				}
			}
		})
	}
}
