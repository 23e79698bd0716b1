package task

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/plexus-hpc/plexus/am"
)

// TestStealHandler: a steal takes half of the public queue, oldest
// first, within StealBytes, never a private task, and moves the tasks
// from the group's active count to its sent count.
func TestStealHandler(t *testing.T) {
	for _, tc := range []struct {
		name          string
		args, queued  int
		want, wantLen int
	}{
		{"small tasks: half, rounded up", 8, 7, 4, 3},
		{"tasks that fill the budget: one", DefaultMaxArgs, 6, 1, 5},
		{"empty queue", 8, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := must(New(&am.Registry{}, Config{StealBytes: DefaultMaxArgs + itemHeader + 4}))
			f := must(p.Register("f", func(context.Context, *T, []byte) error { return nil }))
			g := p.groupLocked(0)
			for i := range tc.queued {
				it := must(p.funcItem(g, f, make([]byte, tc.args)))
				it.args[0] = byte(i)
				must(0, p.push(it, &p.public))
			}
			must(0, p.push(must(p.funcItem(g, f, []byte{99})), &p.private))
			b := must(p.handleSteal(context.Background(), 1, nil))
			items := must(decodeItems(b, 1, 0))
			if len(items) != tc.want || p.public.len() != tc.wantLen || p.private.len() != 1 {
				t.Fatalf("stole %d, left %d public and %d private; want %d, %d and 1",
					len(items), p.public.len(), p.private.len(), tc.want, tc.wantLen)
			}
			for i, it := range items {
				if it.args[0] != byte(i) {
					t.Errorf("stolen task %d is queued task %d: want the oldest first", i, it.args[0])
				}
			}
			if g.active != int64(tc.queued+1-tc.want) || g.sent != uint64(tc.want) {
				t.Errorf("group active %d, sent %d; want %d, %d", g.active, g.sent, tc.queued+1-tc.want, tc.want)
			}
		})
	}
}

// TestConcurrentGroups: two groups made one after the other and waited
// on at once, with tasks in both, each finish with their own tasks.
func TestConcurrentGroups(t *testing.T) {
	var counts [2]atomic.Int64
	var fs [2]Func
	j := newJob(t, 3, Config{Workers: 3}, func(rank int, p *Pool) {
		for k := range fs {
			f := must(p.Register("count"+string(rune('a'+k)), func(_ context.Context, t *T, args []byte) error {
				counts[k].Add(1)
				n, err := Int(args, 0)
				if err != nil || n == 0 {
					return err
				}
				return t.SpawnOn((t.Rank()+1)%t.Size(), fs[k], Ints(n-1))
			}))
			if rank == 0 {
				fs[k] = f
			}
		}
	})
	ctx := testCtx(t)
	errs := j.each(func(rank int, p *Pool) error {
		gs := [2]*Group{must(p.NewGroup()), must(p.NewGroup())}
		for k, g := range gs {
			if err := g.Spawn(fs[k], Ints(int64(50*(k+1)))); err != nil {
				return err
			}
		}
		var wg sync.WaitGroup
		var werrs [2]error
		for k, g := range gs {
			wg.Go(func() { werrs[k] = g.Wait(ctx) })
		}
		wg.Wait()
		return errors.Join(werrs[:]...)
	})
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
	for k := range counts {
		if got, want := counts[k].Load(), int64(3*(50*(k+1)+1)); got != want {
			t.Errorf("group %d ran %d tasks, want %d", k, got, want)
		}
	}
}
