package jobtest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/plexus-hpc/plexus/comm"
)

// TestOnWorlds: every rank's f runs, on its own world, and the errors
// come back joined, each one found.
func TestOnWorlds(t *testing.T) {
	_, ws := TwinWorlds(t, 3)
	errOdd := errors.New("odd rank")
	seen := make([]int, 3)
	err := OnWorlds(ws, func(w *comm.World) error {
		seen[w.Rank()]++
		if w.Rank()%2 == 1 {
			return fmt.Errorf("rank %d: %w", w.Rank(), errOdd)
		}
		return nil
	})
	if !errors.Is(err, errOdd) {
		t.Errorf("OnWorlds: %v, want an error wrapping %v", err, errOdd)
	}
	for r, n := range seen {
		if n != 1 {
			t.Errorf("rank %d ran %d times, want once", r, n)
		}
	}
}

// TestEachIndexesByRank: Each returns rank r's error at index r.
func TestEachIndexesByRank(t *testing.T) {
	errs := Each(4, func(r int) error {
		if r == 2 {
			return context.Canceled
		}
		return nil
	})
	for r, err := range errs {
		if (r == 2) != (err != nil) {
			t.Errorf("rank %d: error %v", r, err)
		}
	}
}
