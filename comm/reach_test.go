//go:build linux

package comm

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/launch"
)

// The reach tests start rank 1 of a two-rank job as a process of its own
// (this test binary again, running TestReachChild), kill it before the
// pair ever exchanged a frame, and check that rank 0's receive from it
// fails with ErrPeerLost within seconds rather than waiting for ever.

// reachChildEnv names the role of a test binary started as rank 1.
const reachChildEnv = "COMM_REACH_CHILD"

// reachLimit is how soon a waiter must hear of the loss: the contract is
// about a second; the rest is room for a loaded machine.
const reachLimit = 5 * time.Second

// TestReachChild is rank 1 of the reach tests' jobs, in its own process:
// it joins the job's bootstrap — with a whole world over TCP ("tcp"), or
// only its card, so that it never joins shared memory ("book") — says
// "ready" and waits to be killed. Run by itself it does nothing.
func TestReachChild(t *testing.T) {
	role := os.Getenv(reachChildEnv)
	if role == "" {
		t.Skip("rank 1 of the reach tests' jobs; started by them")
	}
	info, err := launch.Detect(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	switch role {
	case "tcp":
		_, err = join(ctx, Config{}, info, TransportTCP)
	case "book":
		_, err = joinBook(ctx, launch.Bootstrap{}, info, card(hostKey(), "127.0.0.1:1", os.Getpid()))
	default:
		err = fmt.Errorf("unknown role %q", role)
	}
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("ready")
	time.Sleep(time.Minute) // until killed
}

// reachJob names a fresh job and returns rank info for it.
func reachJob(t *testing.T, rank int) launch.Info {
	return launch.Info{Rank: rank, Size: 2, LocalRank: rank, LocalSize: 2, Launcher: launch.Plexus,
		JobID: fmt.Sprintf("comm-reach-%d-%d", os.Getpid(), time.Now().UnixNano())}
}

// startChild starts rank 1 of job in role and returns it once it is
// ready; ready is closed then. Its output goes to the test log.
func startChild(t *testing.T, job, role string) (*exec.Cmd, <-chan struct{}) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestReachChild$", "-test.count=1")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PLEXUS_") && !strings.HasPrefix(kv, reachChildEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, reachChildEnv+"="+role, "PLEXUS_RANK=1", "PLEXUS_SIZE=2",
		"PLEXUS_JOB="+job, "GORACE=atexit_sleep_ms=0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "ready" {
				close(ready)
			} else {
				t.Logf("rank 1: %s", sc.Text())
			}
		}
	}()
	return cmd, ready
}

// joinKilled joins rank 0 of a job over mode with cfg, whose rank 1,
// started in role, is killed (and reaped) once the bootstrap is done.
func joinKilled(t *testing.T, mode, role string, cfg Config) *World {
	t.Helper()
	info := reachJob(t, 0)
	cmd, ready := startChild(t, info.JobID, role)
	ctx := testCtx(t)
	w, err := join(ctx, cfg, info, mode)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	removeSegment(t, w)
	select {
	case <-ready:
	case <-ctx.Done():
		t.Fatal("rank 1 did not get ready")
	}
	cmd.Process.Kill()
	cmd.Wait()
	return w
}

// removeSegment removes w's shared-memory segment at the end of the test:
// a rank that never joined it cannot be the last one out.
func removeSegment(t *testing.T, w *World) {
	if m, ok := w.t.(*mux); ok {
		if s, ok := m.routes.Load().local.(shmSignaller); ok {
			t.Cleanup(func() { os.Remove(s.Path()) })
		}
	}
}

// TestReachKilledBeforeContact: over TCP, and over shared memory before
// the peer joined the segment, a receive from a rank killed before the
// pair exchanged anything (from it, or from AnySource; waited for, or
// tested until done), a probe, a send that waits for the dead rank's
// answer, and eager sends that fill the dead rank's ring or socket fail
// with ErrPeerLost; in a serialized world too.
func TestReachKilledBeforeContact(t *testing.T) {
	for _, c := range []struct {
		mode, role string
		cfg        Config
	}{{TransportTCP, "tcp", Config{}}, {TransportSHM, "book", Config{}}, {TransportSHM, "book", Config{Serialized: true}}} {
		for _, op := range []string{"recv", "anysource", "test", "probe", "rendezvous", "flood"} {
			if c.cfg.Serialized && op != "recv" && op != "test" {
				continue
			}
			t.Run(fmt.Sprintf("%s/serialized=%v/%s", c.mode, c.cfg.Serialized, op), func(t *testing.T) {
				t.Parallel()
				w := joinKilled(t, c.mode, c.role, c.cfg)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				start := time.Now()
				err := waitOn(ctx, w, op)
				if d := time.Since(start); !errors.Is(err, ErrPeerLost) || d > reachLimit {
					t.Fatalf("%s on a killed rank: %v after %v, want ErrPeerLost within %v", op, err, d, reachLimit)
				}
				t.Logf("%s: %v after %v", op, err, time.Since(start).Round(time.Millisecond))
			})
		}
	}
}

// waitOn runs an operation of w that waits on rank 1.
func waitOn(ctx context.Context, w *World, op string) error {
	var err error
	switch op {
	case "recv":
		_, err = w.Recv(ctx, 1, 3, make([]byte, 8))
	case "anysource":
		_, err = w.Recv(ctx, AnySource, AnyTag, make([]byte, 8))
	case "test":
		err = testUntilDone(ctx, w)
	case "probe":
		_, err = w.Probe(ctx, 1, AnyTag)
	case "rendezvous":
		err = w.Send(ctx, 1, 3, make([]byte, w.cfg.EagerLimit+1))
	case "flood":
		err = flood(ctx, w)
	}
	return err
}

// flood sends rank 1 small eager messages until a send fails: the ring
// or socket towards a rank that never reads fills, and the sender then
// waits on it.
func flood(ctx context.Context, w *World) error {
	msg := make([]byte, 8)
	for {
		if err := w.Send(ctx, 1, 3, msg); err != nil {
			return err
		}
	}
}

// testUntilDone receives from rank 1 by testing an Irecv, never waiting.
func testUntilDone(ctx context.Context, w *World) error {
	r, err := w.Irecv(1, 3, make([]byte, 8))
	if err != nil {
		return err
	}
	for ctx.Err() == nil {
		if _, done, err := r.Test(); done {
			return err
		}
		time.Sleep(time.Millisecond)
	}
	return ctx.Err()
}

// TestReachSlowPeer: a rank that is alive but slow — it connects, or
// joins the segment, seconds after rank 0 started to wait for it — is not
// lost, and its message arrives.
func TestReachSlowPeer(t *testing.T) {
	delay := 3 * time.Second
	if testing.Short() {
		delay = time.Second
	}
	for _, mode := range []string{TransportTCP, TransportSHM} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			info := reachJob(t, 0)
			ctx := testCtx(t)
			errc := make(chan error, 1)
			var done sync.WaitGroup
			done.Add(1)
			go func() { errc <- slowRank(ctx, info.JobID, mode, delay, &done) }()
			w, err := join(ctx, Config{}, info, mode)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			for _, src := range []int{1, AnySource} {
				buf := make([]byte, 8)
				st, err := w.Recv(ctx, src, 7, buf)
				if err != nil || string(buf[:st.Len]) != "late" {
					t.Fatalf("receive from %d: %q, %v; want the slow rank's message", src, buf[:st.Len], err)
				}
			}
			done.Done()
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
		})
	}
}

// slowRank is rank 1 of job, in this process: over TCP it joins at once
// but sends its two messages after delay; over shared memory it
// registers its card, and opens the segment and sends after delay. It
// stays until done.
func slowRank(ctx context.Context, job, mode string, delay time.Duration, done *sync.WaitGroup) error {
	info := launch.Info{Rank: 1, Size: 2, LocalRank: 1, LocalSize: 2, Launcher: launch.Plexus, JobID: job}
	var w *World
	var err error
	if mode == TransportTCP {
		w, err = join(ctx, Config{}, info, mode)
		time.Sleep(delay)
	} else {
		if _, err = joinBook(ctx, launch.Bootstrap{}, info, card(hostKey(), "127.0.0.1:1", os.Getpid())); err != nil {
			return err
		}
		time.Sleep(delay)
		w, err = openWorld(Config{Rank: 1, Size: 2}, shmOpener(info, false, nil)(1, 2))
	}
	if err != nil {
		return fmt.Errorf("slow rank: %w", err)
	}
	defer w.Close()
	for range 2 {
		if err := w.Send(ctx, 0, 7, []byte("late")); err != nil {
			return fmt.Errorf("slow rank: %w", err)
		}
	}
	done.Wait()
	return nil
}
