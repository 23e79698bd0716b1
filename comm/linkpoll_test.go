//go:build linux

package comm

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/launch"
)

// TestLinkProgress checks that a member's poll of a link over TCP brings
// the message in, in order, and that a world someone else polls, or one
// over the twin (not a poller), declines.
func TestLinkProgress(t *testing.T) {
	ws := tcpWorlds(t, 2, Config{})
	a, b := linkPair(t, ws, 0)
	ctx := context.Background()
	for i := range 3 {
		if err := a.Send(ctx, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	buf := make([]byte, 1)
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; i < 3; {
		if _, ok := b.Progress(); !ok {
			t.Fatal("a TCP world declined to be polled")
		}
		n, ok, err := b.TryRecv(buf)
		switch {
		case err != nil:
			t.Fatal(err)
		case ok && (n != 1 || buf[0] != byte(i)):
			t.Fatalf("message %d is %v", i, buf[:n])
		case ok:
			i++
		case time.Now().After(deadline):
			t.Fatalf("message %d never came", i)
		}
	}
	b.ProgressDone()

	ws[1].spinning.Store(true)
	if _, ok := b.Progress(); ok {
		t.Error("Progress polled while another goroutine polls the world")
	}
	ws[1].spinning.Store(false)
	// On a crowded host an empty poll gives the CPU away; elsewhere not.
	yields := 0
	defer func(f func()) { osYield = f }(osYield)
	osYield = func() { yields++ }
	if _, ok := b.Progress(); !ok || yields != 0 {
		t.Errorf("uncrowded empty poll: ok %v, %d yields; want true, 0", ok, yields)
	}
	ws[1].crowded = true
	if _, ok := b.Progress(); !ok || yields != 1 {
		t.Errorf("crowded empty poll: ok %v, %d yields; want true, 1", ok, yields)
	}
}

// TestHostCPUs checks that the launcher's count wins, and that without
// one the count is at least what this process may use.
func TestHostCPUs(t *testing.T) {
	if got := hostCPUs(launch.Info{HostCPUs: 7}); got != 7 {
		t.Errorf("hostCPUs with the launcher saying 7 = %d", got)
	}
	if got := hostCPUs(launch.Info{}); got < runtime.NumCPU() {
		t.Errorf("hostCPUs without a launcher's count = %d, below NumCPU %d", got, runtime.NumCPU())
	}
}

func TestCrowded(t *testing.T) {
	hosts := []string{"a", "a", "b", "a"}
	for _, c := range []struct {
		rank, cpus int
		want       bool
	}{{0, 2, true}, {0, 3, false}, {2, 1, false}, {2, 0, true}} {
		if got := crowded(hosts, c.rank, c.cpus); got != c.want {
			t.Errorf("crowded(%v, rank %d, %d CPUs) = %v, want %v", hosts, c.rank, c.cpus, got, c.want)
		}
	}
	// Namespace hosts on one machine share its CPUs: two hosts of two
	// ranks crowd two CPUs; on two machines they do not.
	const boot1, boot2 = "0f6e1f7c-3a9e-4b55-9a34-2f1f7d0c8a01", "5b3c9e2d-1d4a-4e8f-8c61-7a2b9d4e6f02"
	one := []string{"h1/" + boot1 + "/net:[1]", "h1/" + boot1 + "/net:[1]", "h2/" + boot1 + "/net:[2]", "h2/" + boot1 + "/net:[2]"}
	two := []string{"h1/" + boot1 + "/net:[1]", "h1/" + boot1 + "/net:[1]", "h2/" + boot2 + "/net:[2]", "h2/" + boot2 + "/net:[2]"}
	if !crowded(one, 0, 2) || !crowded(one, 3, 3) || crowded(two, 0, 2) || crowded(one, 0, 4) {
		t.Errorf("crowded across namespace hosts: one machine %v %v, two machines %v, 4 CPUs %v; want true true false false",
			crowded(one, 0, 2), crowded(one, 3, 3), crowded(two, 0, 2), crowded(one, 0, 4))
	}
}

// TestSpinYieldsWhenCrowded checks that a blocking receive that polls
// gives the CPU away between checks on a crowded host, and not elsewhere.
func TestSpinYieldsWhenCrowded(t *testing.T) {
	ws := tcpWorlds(t, 2, Config{})
	ctx := testCtx(t)
	var yields atomic.Int64
	defer func(f func()) { osYield = f }(osYield)
	osYield = func() { yields.Add(1) }
	for _, crowded := range []bool{false, true} {
		ws[1].crowded = crowded
		yields.Store(0)
		go func() {
			time.Sleep(2 * time.Millisecond) // long enough for checks
			ws[0].Send(ctx, 1, 9, []byte{1})
		}()
		if _, err := ws[1].Recv(ctx, 0, 9, make([]byte, 1)); err != nil {
			t.Fatal(err)
		}
		if got := yields.Load(); crowded != (got > 0) {
			t.Errorf("crowded %v: %d yields while polling", crowded, got)
		}
	}
}

// TestSerialLinkPollStopsAtItsMessage: a serialized world's TryRecv on a
// link polls until that link's message is in and no further, so what
// came after it (here a message on another channel) is still in the ring
// afterwards, where a poll would read it next, rather than delivered on
// the way: looking at the ring past the awaited frame makes the sender's
// next write fetch the line back.
func TestSerialLinkPollStopsAtItsMessage(t *testing.T) {
	ws := serialWorlds(t, 2, Config{}).ws
	a0, b0 := linkPair(t, ws, 0)
	a1, b1 := linkPair(t, ws, 1)
	buf := make([]byte, 8)
	for round := range 50 {
		if ok, err := a0.TrySend([]byte{byte(round)}); !ok || err != nil {
			t.Fatalf("round %d: send on channel 0: %v %v", round, ok, err)
		}
		if ok, err := a1.TrySend([]byte{byte(round + 1)}); !ok || err != nil {
			t.Fatalf("round %d: send on channel 1: %v %v", round, ok, err)
		}
		n, ok, err := b0.TryRecv(buf)
		if err != nil || !ok || n != 1 || buf[0] != byte(round) {
			t.Fatalf("round %d: channel 0 got %v %v %v", round, buf[:n], ok, err)
		}
		if q := b1.c.queued.Load(); q != 0 {
			t.Fatalf("round %d: the poll for channel 0 also delivered %d message(s) of channel 1", round, q)
		}
		n, ok, err = b1.TryRecv(buf)
		if err != nil || !ok || n != 1 || buf[0] != byte(round+1) {
			t.Fatalf("round %d: channel 1 got %v %v %v", round, buf[:n], ok, err)
		}
	}
}
