package comm

import (
	"context"
	"errors"
	"runtime"
	"testing"
)

// TestFreeReuse checks that freed requests serve later operations: a
// window loop over TCP that frees its requests allocates (almost) nothing
// once warm, while the data still arrives intact. (The twin transport
// copies every frame, so it is not the one to count on.)
func TestFreeReuse(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop requests at random")
	}
	{
		ws := tcpWorlds(t, 2, Config{})
		ctx := testCtx(t)
		const win = 16
		sreqs, rreqs := make([]*Request, win), make([]*Request, win)
		out := make([][]byte, win)
		in := make([][]byte, win)
		for i := range win {
			out[i], in[i] = payload(0, i, 8), make([]byte, 8)
		}
		round := func() {
			for i := range win {
				var err error
				if rreqs[i], err = ws[1].Irecv(0, i, in[i]); err != nil {
					t.Fatal(err)
				}
				if sreqs[i], err = ws[0].Isend(1, i, out[i]); err != nil {
					t.Fatal(err)
				}
			}
			if err := WaitallInto(ctx, nil, sreqs...); err != nil {
				t.Fatal(err)
			}
			if err := WaitallInto(ctx, nil, rreqs...); err != nil {
				t.Fatal(err)
			}
			for i := range win {
				if err := check(in[i], 0, i, 8); err != nil {
					t.Fatal(err)
				}
			}
			if err := errors.Join(Free(sreqs...), Free(rreqs...)); err != nil {
				t.Fatal(err)
			}
		}
		round()
		// Without reuse a round costs win requests from slabs: a few KiB.
		if b := bytesPerRun(200, round); b > 64 {
			t.Errorf("a window of %d freed requests allocates %.0f bytes, want ≤ 64", win, b)
		}
	}
}

// TestFreeInFlight checks that Free refuses an unfinished request and
// leaves it working.
func TestFreeInFlight(t *testing.T) {
	ws, _ := twinWorlds(t, 2, Config{})
	ctx := testCtx(t)
	buf := make([]byte, 8)
	r, err := ws[1].Irecv(0, 7, buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := Free(r); !errors.Is(err, ErrInFlight) {
		t.Fatalf("Free of a pending receive: %v, want ErrInFlight", err)
	}
	if err := ws[0].Send(ctx, 1, 7, payload(0, 7, 8)); err != nil {
		t.Fatal(err)
	}
	if st, err := r.Wait(ctx); err != nil || st.Len != 8 || check(buf, 0, 7, 8) != nil {
		t.Fatalf("receive after a refused Free: %+v, %v", st, err)
	}
}

// TestFreeThenWaitPanics checks that using a freed request that was not
// reused yet is caught.
func TestFreeThenWaitPanics(t *testing.T) {
	ctx := testCtx(t)
	r := freedReceive(t, ctx)
	defer func() {
		if recover() == nil {
			t.Error("Wait on a freed request did not panic")
		}
	}()
	r.Wait(ctx)
}

// TestSharedSentRequests checks the completed requests of eager Isends:
// each reports its own destination, tag and length, whether or not it is
// shared, and freeing them changes nothing.
func TestSharedSentRequests(t *testing.T) {
	ws, _ := twinWorlds(t, 2, Config{})
	ctx := testCtx(t)
	sizes := []int{8, 8, 16, 8}
	tags := []int{3, 3, 3, 4}
	reqs := make([]*Request, len(sizes))
	for i := range sizes {
		var err error
		if reqs[i], err = ws[0].Isend(1, tags[i], make([]byte, sizes[i])); err != nil {
			t.Fatal(err)
		}
	}
	if err := Free(reqs...); err != nil {
		t.Fatal(err)
	}
	for i, r := range reqs {
		st, done, err := r.Test()
		if want := (Status{Source: 1, Tag: tags[i], Len: sizes[i]}); !done || err != nil || st != want {
			t.Errorf("Isend %d: Test = %+v, %v, %v; want %+v, done", i, st, done, err, want)
		}
	}
	for i := range sizes {
		if _, err := ws[1].Recv(ctx, 0, tags[i], make([]byte, sizes[i])); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWaitallInto checks the statuses it writes and its length check.
func TestWaitallInto(t *testing.T) {
	ws, _ := twinWorlds(t, 2, Config{})
	ctx := testCtx(t)
	reqs := make([]*Request, 3)
	for i := range reqs {
		var err error
		if reqs[i], err = ws[1].Irecv(0, i, make([]byte, 8)); err != nil {
			t.Fatal(err)
		}
		if err := ws[0].Send(ctx, 1, i, payload(0, i, i+1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := WaitallInto(ctx, make([]Status, 2), reqs...); err == nil {
		t.Error("WaitallInto with 2 statuses for 3 requests: no error")
	}
	sts := make([]Status, 3)
	if err := WaitallInto(ctx, sts, reqs...); err != nil {
		t.Fatal(err)
	}
	for i, st := range sts {
		if st != (Status{Source: 0, Tag: i, Len: i + 1}) {
			t.Errorf("status %d = %+v", i, st)
		}
	}
}

// bytesPerRun is the mean number of bytes the process allocates while f
// runs, over n runs, like testing.AllocsPerRun counting bytes: requests
// come from slabs, a few allocations of many bytes.
func bytesPerRun(n int, f func()) float64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
}

// TestFreeTwice checks that a second Free of a request says it was freed
// already, not that it is still in flight.
func TestFreeTwice(t *testing.T) {
	r := freedReceive(t, testCtx(t))
	err := Free(r)
	if !errors.Is(err, ErrFreed) || errors.Is(err, ErrInFlight) {
		t.Fatalf("second Free: %v, want ErrFreed alone", err)
	}
}

// freedReceive returns a receive of two twin worlds that completed and
// was freed once.
func freedReceive(t *testing.T, ctx context.Context) *Request {
	t.Helper()
	ws, _ := twinWorlds(t, 2, Config{})
	r, err := ws[1].Irecv(0, 7, make([]byte, 8))
	if err != nil {
		t.Fatal(err)
	}
	if err := ws[0].Send(ctx, 1, 7, payload(0, 7, 8)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if err := Free(r); err != nil {
		t.Fatalf("first Free: %v", err)
	}
	return r
}
