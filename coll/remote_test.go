package coll

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/tree"
)

// twinDialers returns, for every member of trees over ids, a Dialer whose
// links are twin pairs shared with the peer's dialer: what separate
// processes would get from their transports.
func twinDialers(ids []int) map[int]Dialer {
	var mu sync.Mutex
	pairs := map[[3]int][2]*twinLink{}
	ds := map[int]Dialer{}
	for _, self := range ids {
		ds[self] = func(peer int, lane Lane) (Link, error) {
			mu.Lock()
			defer mu.Unlock()
			k := [3]int{min(self, peer), max(self, peer), int(lane)}
			p, ok := pairs[k]
			if !ok {
				a, b := newTwinPair(8, DefaultMaxMessage)
				p = [2]*twinLink{a, b}
				pairs[k] = p
			}
			if self == k[0] {
				return p[0], nil
			}
			return p[1], nil
		}
	}
	return ds
}

// remoteMembers makes one NewMember per member of bc, each on its own.
func remoteMembers(t *testing.T, bc *tree.Tree) []*Member {
	t.Helper()
	ds := twinDialers(bc.Members())
	var ms []*Member
	for _, id := range bc.Members() {
		m, err := NewMember(Config{Broadcast: bc}, id, ds[id])
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	return ms
}

// runEach runs f on every member on its own goroutine and joins errors.
func runEach(t *testing.T, ms []*Member, f func(ctx context.Context, m *Member) error) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errs := make([]error, len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Go(func() { errs[i] = f(ctx, m) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// TestNewMember runs every collective on members made one by one, as
// ranks make them, against the sequential references.
func TestNewMember(t *testing.T) {
	for _, top := range topologies {
		for _, n := range sizes() {
			t.Run(fmt.Sprintf("%v/members=%d", top, n), func(t *testing.T) {
				bc := buildTree(t, n, top)
				ms := remoteMembers(t, bc)
				if err := runEach(t, ms, func(ctx context.Context, m *Member) error {
					return allOps(ctx, m, bc.Members())
				}); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// allOps runs rounds of every collective on m and checks the results.
func allOps(ctx context.Context, m *Member, ids []int) error {
	for r := range rounds(50) {
		var sum [1]int64
		if err := AllreduceValues(ctx, m, []int64{value(m.CPU(), r)}, sum[:], func(a, b int64) int64 { return a + b }); err != nil {
			return err
		}
		var want int64
		for _, id := range ids {
			want += value(id, r)
		}
		if sum[0] != want {
			return fmt.Errorf("member %d round %d: allreduce %d, want %d", m.CPU(), r, sum[0], want)
		}
		if err := m.Barrier(ctx); err != nil {
			return err
		}
		if err := m.DisseminationBarrier(ctx); err != nil {
			return err
		}
		out := make([]byte, len(ids)*5)
		if err := m.Allgather(ctx, block(m.CPU(), r, 5), out); err != nil {
			return err
		}
		if !bytes.Equal(out, gathered(ids, r, 5)) {
			return fmt.Errorf("member %d round %d: allgather differs", m.CPU(), r)
		}
	}
	return nil
}

func TestNewMemberErrors(t *testing.T) {
	bc := buildTree(t, 3, tree.Binary)
	d := twinDialers(bc.Members())[0]
	if _, err := NewMember(Config{Broadcast: bc, Pin: true}, 0, d); err == nil {
		t.Error("a pinned remote member was accepted")
	}
	if _, err := NewMember(Config{Broadcast: bc}, 7, d); err == nil {
		t.Error("a member outside the trees was accepted")
	}
	fail := func(int, Lane) (Link, error) { return nil, errors.New("no route") }
	if _, err := NewMember(Config{Broadcast: bc}, 1, fail); err == nil {
		t.Error("a dial failure was ignored")
	}
}
