//go:build linux

package collective

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/comm"
)

// TestClusterAcross: on namespace hosts (2 hosts × 2 ranks, 3 hosts × 2
// ranks), ranks in processes of their own, over each host's shared
// memory and TCP between hosts, run rounds of the default
// communicator's barriers and broadcasts on the trees mixed with
// floating-point allreduces across hosts (across.go); every rank gets
// the bytes the documented order gives (wantHier), the same everywhere,
// and on 2 hosts, for an associative op that does not commute, the
// sequential fold of the inputs in rank order.
func TestClusterAcross(t *testing.T) {
	clusterUp(t, 3)
	for _, layout := range []string{"aabb", "aabbcc"} {
		t.Run("hosts="+layout, func(t *testing.T) {
			rounds := count(1000)
			out := runCluster(t, layout, "across-ops", rounds)
			for r := range layout {
				want := []string{fmt.Sprintf("[%d] rank %d: %d rounds across hosts exact", r, r, rounds)}
				if layout == "aabb" {
					want = append(want, fmt.Sprintf("[%d] rank %d: sequential fold exact", r, r))
				}
				for _, w := range want {
					if !strings.Contains(out, w) {
						t.Errorf("output lacks %q:\n%s", w, out)
					}
				}
			}
		})
	}
}

// TestClusterAcrossKilled: a rank dies without a word while the others
// wait for it in an allreduce across hosts (rank 3: its host's rank 2
// waits on its post, its counterpart rank 1 on its partial; rank 0: the
// same on h1): every other rank fails with the loss or the abort that
// follows it within lossLimit of its death, and no rank hangs.
func TestClusterAcrossKilled(t *testing.T) {
	clusterUp(t, 2)
	for _, gone := range []int{0, 3} {
		t.Run(fmt.Sprintf("gone=%d", gone), func(t *testing.T) {
			checkLoss(t, runCluster(t, "aabb", fmt.Sprintf("across-kill%d", gone), 50), gone, 4, "allreduce")
		})
	}
}

// acrossRank is one rank of a runCluster job in an across-* mode.
func acrossRank(ctx context.Context, mode string) error {
	w, err := comm.Join(ctx)
	if err != nil {
		return err
	}
	defer w.Close()
	c, err := New(ctx, w, Config{Model: Placement, AcrossCrowded: true}) // the cluster's hosts share this machine's CPUs
	if err != nil {
		return err
	}
	defer c.Close()
	if c.across == nil {
		return fmt.Errorf("rank %d on hosts %v: allreduce not across hosts", w.Rank(), w.Hosts())
	}
	rounds, err := exactRounds(ctx, c)
	if err != nil {
		return err
	}
	if mode != "across-ops" {
		return acrossKill(ctx, c, int(mode[len(mode)-1]-'0'))
	}
	fmt.Printf("rank %d: %d rounds across hosts exact\n", c.Rank(), rounds)
	if h := len(w.Hosts()); h&(h-1) != 0 {
		return nil // 3 hosts bracket h2 before h1
	}
	if err := sequentialFold(ctx, c); err != nil {
		return err
	}
	fmt.Printf("rank %d: sequential fold exact\n", c.Rank())
	return nil
}

// sequentialFold checks that an allreduce of matrix products (associative,
// not commutative) returns m0·m1·…·m(n-1); the layouts' hosts hold
// consecutive ranks.
func sequentialFold(ctx context.Context, c *Comm) error {
	want := matrixOf(0)
	for r := 1; r < c.Size(); r++ {
		want = matMul(want, matrixOf(r))
	}
	out := make([]byte, 32)
	if err := c.Allreduce(ctx, matrixOf(c.Rank()), out, matOp); err != nil {
		return fmt.Errorf("rank %d: matrix allreduce: %w", c.Rank(), err)
	}
	if string(out) != string(want) {
		return fmt.Errorf("rank %d: matrix allreduce %x, want the sequential fold %x", c.Rank(), out, want)
	}
	return nil
}

// acrossKill has rank gone exit without a word while the others wait in
// an allreduce, and each say when and how theirs failed.
func acrossKill(ctx context.Context, c *Comm, gone int) error {
	if c.Rank() == gone {
		time.Sleep(100 * time.Millisecond)
		fmt.Printf("rank %d exits at %d\n", c.Rank(), time.Now().UnixNano())
		os.Exit(0)
	}
	err := c.Allreduce(ctx, make([]byte, 8), make([]byte, 8), addFloats)
	at := time.Now().UnixNano()
	switch {
	case err == nil:
		return fmt.Errorf("rank %d: allreduce without the dead rank succeeded", c.Rank())
	case errors.Is(err, comm.ErrPeerLost) || errors.Is(err, comm.ErrLinkAborted):
		fmt.Printf("rank %d: allreduce failed at %d: %v\n", c.Rank(), at, err)
		return nil
	}
	return fmt.Errorf("rank %d: allreduce failed with %w, want the loss", c.Rank(), err)
}
