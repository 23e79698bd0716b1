package collective

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/commtest"
	"github.com/plexus-hpc/plexus/internal/jobtest"
)

// fixture is a set of worlds in this process and a way to crash one.
type fixture struct {
	ws   []*comm.World
	kill func(rank int)
}

// twinWorlds returns n worlds on one comm twin.
func twinWorlds(t testing.TB, n int) fixture {
	t.Helper()
	tw, ws := jobtest.TwinWorlds(t, n)
	return fixture{ws, tw.Kill}
}

// tcpWorlds returns n worlds over TCP loopback, as comm's tests make them:
// an address book filled once every endpoint listens.
func tcpWorlds(t testing.TB, n int) fixture {
	t.Helper()
	ws, err := commtest.TCPWorlds(n, "collective-test", comm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeAll(ws) })
	return fixture{ws, func(r int) { ws[r].Close() }}
}

func closeAll(ws []*comm.World) {
	for _, w := range ws {
		w.Close()
	}
}

var makers = map[string]func(t testing.TB, n int) fixture{"twin": twinWorlds, "tcp": tcpWorlds}

// testCtx ends well before the test binary's timeout, so that a hang
// fails one test with a message.
func testCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// eachRank runs f for every rank on its own goroutine and joins errors.
func eachRank(n int, f func(rank int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Go(func() {
			if err := f(r); err != nil {
				errs[r] = fmt.Errorf("rank %d: %w", r, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// newComms makes a communicator on every world, as the ranks would.
func newComms(t testing.TB, ctx context.Context, ws []*comm.World, cfg Config) []*Comm {
	t.Helper()
	cs := make([]*Comm, len(ws))
	err := eachRank(len(ws), func(r int) error {
		c := cfg
		c.Host = fmt.Sprintf("host%d", r/2)
		var err error
		cs[r], err = New(ctx, ws[r], c)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
