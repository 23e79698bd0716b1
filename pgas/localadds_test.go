package pgas

import "testing"

// TestLocalAddsApplyBeforeOtherDelegates: Adds at this rank's home are
// queued and applied in batches (localadds.go), yet a later delegate of
// this rank sees them, and so does another rank's delegate that runs
// after them, with no Quiet in between; Quiet applies a partial batch.
func TestLocalAddsApplyBeforeOtherDelegates(t *testing.T) {
	j := newJob(t, 2, Config{}, nil)
	ctx := testCtx(t)
	as := alloc[int64](t, j, 16) // elements 0-7 at rank 0
	mine, theirs := as[0].At(3), as[1].At(3)
	if mine.Addr().Rank != 0 {
		t.Fatalf("element 3 at %v, want rank 0", mine.Addr())
	}
	n := 3*addBatch + 7 // full batches and a partial one
	for range n {
		if err := mine.Add(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	if v, err := theirs.Read(ctx); err != nil || v != int64(n) {
		t.Fatalf("rank 1's Read after rank 0's %d Adds: %d, %v", n, v, err)
	}
	for range 5 {
		if err := mine.Add(ctx, 2); err != nil {
			t.Fatal(err)
		}
	}
	if old, err := mine.FetchAndAdd(ctx, 100); err != nil || old != int64(n+10) {
		t.Fatalf("FetchAndAdd after the Adds: old %d, %v; want %d", old, err, n+10)
	}
	if err := mine.Add(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := j.hs[0].Quiet(ctx); err != nil {
		t.Fatal(err)
	}
	h := j.hs[0]
	h.mu.Lock()
	pending := len(h.adds)
	h.mu.Unlock()
	if pending != 0 {
		t.Errorf("%d Adds pending after Quiet", pending)
	}
	if v, err := theirs.Read(ctx); err != nil || v != int64(n+111) {
		t.Errorf("after Quiet: %d, %v; want %d", v, err, n+111)
	}
}
