//go:build linux

package shm

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/internal/logtest"
	"github.com/plexus-hpc/plexus/transport/frame"
)

// TestAwaitJoin: a rank whose process ended before it joined the segment
// is lost, once; a rank whose process lives is not, however late it
// joins, and its frames arrive.
func TestAwaitJoin(t *testing.T) {
	dir := shmDir(t)
	s := newSink()
	open := func(rank int, sk *sink) *Endpoint {
		ep, err := Open(Config{Rank: rank, Size: 3, JobID: "await-join", Dir: dir,
			Deliver: sk.deliver, Lost: sk.lose, Logger: logtest.New(t)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ep.Close() })
		return ep
	}
	ep := open(0, s)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip(err)
	}
	ep.AwaitJoin(1, dead.Process.Pid)
	ep.AwaitJoin(1, dead.Process.Pid)
	ep.AwaitJoin(2, os.Getpid())
	select {
	case err := <-s.lost:
		if !errors.Is(err, ErrPeerLost) || !strings.Contains(err.Error(), "before it joined") {
			t.Errorf("lost with %v", err)
		}
	case <-time.After(time.Second):
		t.Fatal("a rank that died before it joined was not lost")
	}
	time.Sleep(5 * DefaultHeartbeat)
	late := open(2, newSink())
	if err := late.Send(context.Background(), 0, frame.Header{Kind: frame.Eager}, []byte("late")); err != nil {
		t.Fatal(err)
	}
	if f := s.wait(t, 1, 5*time.Second); f[0].peer != 2 || string(f[0].payload) != "late" {
		t.Errorf("delivered %+v", f[0])
	}
	select {
	case err := <-s.lost:
		t.Errorf("another loss: %v", err)
	case <-time.After(5 * DefaultHeartbeat):
	}
}
