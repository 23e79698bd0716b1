package comm

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/launch"
	"github.com/plexus-hpc/plexus/transport/frame"
	"github.com/plexus-hpc/plexus/transport/tcp"
)

// joinMPIRun joins two ranks over TCP as mpirun starts them: a job id, but
// no PLEXUS_SECRET and no bootstrap address, so the ranks meet through
// the rendezvous file.
func joinMPIRun(t *testing.T, ctx context.Context, job string) [2]*World {
	t.Helper()
	var ws [2]*World
	var errs [2]error
	var wg sync.WaitGroup
	for r := range ws {
		info := launch.Info{Rank: r, Size: 2, LocalRank: r, LocalSize: 2, Launcher: launch.MPIRun, JobID: job}
		wg.Go(func() { ws[r], errs[r] = join(ctx, Config{}, info, TransportTCP) })
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	t.Cleanup(func() { ws[0].Close(); ws[1].Close() })
	return ws
}

// TestJoinStrangerWithDerivedKey: under mpirun, srun or torchrun without
// PLEXUS_SECRET the data links used a key derived from the job id and
// the uid, which a stranger can compute. A stranger holding that key,
// claiming rank 1 before the real rank 1 connects, must be refused, told
// nothing about the job, and deliver nothing; the real ranks still talk.
func TestJoinStrangerWithDerivedKey(t *testing.T) {
	ctx := testCtx(t)
	job := fmt.Sprintf("comm-key-test-%d", time.Now().UnixNano())
	ws := joinMPIRun(t, ctx, job)
	rank0 := ws[0].t.(*tcp.Endpoint).Addr()
	derived := sha256.Sum256([]byte("plexus data " + job + " " + strconv.Itoa(os.Getuid()) + " "))
	stranger, err := tcp.Listen(tcp.Config{Rank: 1, Size: 2, JobID: job, Secret: derived[:],
		Addrs:   func(int) (string, error) { return rank0, nil },
		Deliver: func(int, frame.Header, []byte) {}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer stranger.Close()
	forged := []byte("forged")
	err = stranger.Send(ctx, 0, frame.Header{Kind: frame.Eager, Comm: commWorld, Tag: 5, Aux: uint64(len(forged))}, forged)
	if !errors.Is(err, tcp.ErrAuth) {
		t.Errorf("a stranger with the derived key connected as rank 1: %v", err)
	} else if strings.Contains(err.Error(), job) {
		t.Errorf("the refusal names the job: %v", err)
	}
	sent := make(chan error, 1)
	go func() { sent <- ws[1].Send(ctx, 0, 5, []byte("honest")) }()
	buf := make([]byte, 16)
	st, err := ws[0].Recv(ctx, 1, 5, buf)
	if err != nil || string(buf[:st.Len]) != "honest" {
		t.Errorf("rank 0 received %q, %v; want rank 1's %q", buf[:st.Len], err, "honest")
	}
	if err := <-sent; err != nil {
		t.Errorf("rank 1's send: %v", err)
	}
}

// TestJoinKeyUnknownWithoutExchange: a rank whose exchange fails has no
// key, and its endpoint refuses rather than fall back to another.
func TestJoinKeyUnknownWithoutExchange(t *testing.T) {
	b := &book{ready: make(chan struct{})}
	close(b.ready)
	if _, err := b.key(context.Background()); !errors.Is(err, errNoSecret) {
		t.Errorf("key after a failed exchange: %v, want errNoSecret", err)
	}
	cfg := tcpConfig(launch.Info{Rank: 0, Size: 2, JobID: "j"}, b)
	if cfg.Secret != nil || cfg.Key == nil {
		t.Errorf("no PLEXUS_SECRET, but the endpoint is keyed with %x", cfg.Secret)
	}
}
