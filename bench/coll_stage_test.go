package bench

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestStageRunsSideBySide checks that a stage's cases, once calibrated,
// make their runs in turn (a b c a b c ...), so a slow phase falls on
// all of them, and that each row is its own case's median.
func TestStageRunsSideBySide(t *testing.T) {
	var log []string
	mk := func(name string, cost time.Duration) *kase {
		return &kase{bench: "barrier", impl: name, members: 2, unpinned: true,
			setup: func() (body, func(), error) {
				log = append(log, name)
				return func(i, _ int) error {
					if i == 0 {
						busy(cost)
					}
					return nil
				}, func() {}, nil
			}}
	}
	ks := []*kase{mk("a", 2*time.Microsecond), mk("b", 20*time.Microsecond), mk("c", 2*time.Microsecond)}
	cfg := &Config{CPUs: []int{0, 1}, Target: 4 * time.Millisecond, Runs: 4}
	ticks := 0
	rs, err := runStage(context.Background(), cfg, ks, func() { ticks++ })
	if err != nil {
		t.Fatal(err)
	}
	if ticks != len(ks)*cfg.Runs {
		t.Errorf("%d ticks, want %d", ticks, len(ks)*cfg.Runs)
	}
	tail := log[len(log)-(cfg.Runs-1)*len(ks):]
	for i, name := range tail {
		if want := ks[i%len(ks)].impl; name != want {
			t.Fatalf("run %d after calibration was %s, want %s (runs %v)", i, name, want, tail)
		}
	}
	if got := []string{rs[0].Impl, rs[1].Impl, rs[2].Impl}; !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("rows %v, want a b c", got)
	}
	// b's extra 18 µs of work per operation must show, at least half of
	// it: a ratio would also count the stage's own cost per operation,
	// which on a loaded machine is as much as a's whole work.
	extra := float64(9 * time.Microsecond)
	if rs[1].NsPerOp-rs[0].NsPerOp < extra || rs[1].NsPerOp-rs[2].NsPerOp < extra {
		t.Errorf("b (18 µs more work) %.0f ns against a %.0f, c %.0f", rs[1].NsPerOp, rs[0].NsPerOp, rs[2].NsPerOp)
	}
}

// TestStageStopsAtFailure checks that a failing case ends the stage
// with an error that names it.
func TestStageStopsAtFailure(t *testing.T) {
	bad := errors.New("broken member")
	k := &kase{bench: "bcast", impl: "team-bad", members: 2, unpinned: true,
		setup: func() (body, func(), error) { return nil, nil, bad }}
	_, err := runStage(context.Background(), &Config{CPUs: []int{0, 1}, Target: time.Millisecond, Runs: 2}, []*kase{k}, func() {})
	if !errors.Is(err, bad) {
		t.Fatalf("err %v, want %v", err, bad)
	}
	if want := "bcast/team-bad members=2"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err %q does not name %q", err, want)
	}
}

// busy spins for d on the calling goroutine.
func busy(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

// TestStalledCalibrationHeals checks that a case whose calibration met a
// stall (its first run slow) lengthens its later runs to the target, and
// that the stall does not decide its median.
func TestStalledCalibrationHeals(t *testing.T) {
	setups := 0
	setup := func() (body, func(), error) {
		setups++
		stall := setups == 1
		return func(i, it int) error {
			if i == 0 && it == 0 && stall {
				time.Sleep(5 * time.Millisecond)
			}
			if i == 0 {
				busy(time.Microsecond)
			}
			return nil
		}, func() {}, nil
	}
	target := 8 * time.Millisecond
	r, err := startRuns(context.Background(), []int{0, 1}, false, target, setup)
	if err != nil {
		t.Fatal(err)
	}
	first := r.iters
	for range 4 {
		if err := r.next(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if r.iters <= first {
		t.Errorf("runs still %d iterations after the stalled calibration's %d", r.iters, first)
	}
	if m := r.median(); m > 50_000 {
		t.Errorf("median %.0f ns per iteration: the stall decided it", m)
	}
}
