package am

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/comm"
)

// TestPeerLost: Calls waiting on a rank that dies fail with ErrPeerLost,
// and so do later Calls and Posts to it; the other ranks go on.
func TestPeerLost(t *testing.T) {
	block := make(chan struct{})
	j := newJob(t, 3, Config{}, func(_ int, r *Registry) {
		r.Register("hang", func(ctx context.Context, _ int, _ []byte) ([]byte, error) {
			select {
			case <-block:
			case <-ctx.Done():
			}
			return nil, nil
		})
		r.Register("echo", echo)
	})
	defer close(block)
	ctx := testCtx(t)
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			_, err := j.es[0].Call(ctx, 2, 0, nil)
			errs <- err
		}()
	}
	time.Sleep(10 * time.Millisecond) // let the calls reach rank 2
	j.twin.Kill(2)
	for range 8 {
		if err := <-errs; !errors.Is(err, comm.ErrPeerLost) {
			t.Errorf("waiting call: %v; want ErrPeerLost", err)
		}
	}
	if _, err := j.es[0].Call(ctx, 2, 1, nil); !errors.Is(err, comm.ErrPeerLost) {
		t.Errorf("later call: %v; want ErrPeerLost", err)
	}
	waitErr(t, func() error { return j.es[0].Post(ctx, 2, 1, nil) })
	if got, err := j.es[0].Call(ctx, 1, 1, []byte("x")); err != nil || string(got) != "0:x" {
		t.Errorf("call to a live rank: %q, %v", got, err)
	}
}

// waitErr waits for f to fail with ErrPeerLost: a Post may still be
// accepted until the loss has been heard.
func waitErr(t *testing.T, f func() error) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for err := f(); !errors.Is(err, comm.ErrPeerLost); err = f() {
		if time.Now().After(deadline) {
			t.Fatalf("post to a lost rank: %v; want ErrPeerLost", err)
		}
		time.Sleep(time.Millisecond)
	}
}
