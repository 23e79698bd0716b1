package am

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/comm"
)

// TestPostsToDyingRank: goroutines post as fast as they can to a rank
// that dies; every Post must end (with ErrPeerLost once the loss is
// heard) and Calls to the live ranks must go on. Before the fix, the
// outbox's sender, reporting the failed send, waited for the outbox lock
// held by an append blocked on the sender's full queue.
func TestPostsToDyingRank(t *testing.T) {
	for trial := range 5 {
		j := newJob(t, 3, Config{}, func(_ int, r *Registry) { r.Register("echo", echo) })
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for {
					err := j.es[g%2].Post(ctx, 2, 0, make([]byte, 18))
					if errors.Is(err, comm.ErrPeerLost) {
						return
					}
					if err != nil {
						t.Errorf("trial %d: post: %v", trial, err)
						return
					}
				}
			})
		}
		time.Sleep(20 * time.Millisecond)
		j.twin.Kill(2)
		wg.Wait()
		if _, err := j.es[0].Call(ctx, 1, 0, nil); err != nil {
			t.Errorf("trial %d: call to a live rank after the loss: %v", trial, err)
		}
		cancel()
	}
}
