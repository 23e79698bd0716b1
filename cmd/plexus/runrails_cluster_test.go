//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/comm"
)

// TestRunWithRails runs two ranks, one on each of two namespace hosts
// joined by a 1 Gbit and a 500 Mbit rail, with plexus run --rails: rank 0
// sends rank 1 messages of 1 to 16 MiB with checked contents, and each
// rail's interface on h2 must have received a share of their bytes (the
// main connection takes the hosts' bridge, not the rails).
func TestRunWithRails(t *testing.T) {
	_, _, agent := twoHostJob(t, 2)
	if b, err := exec.Command(railsScript, "up", "h1", "h2", "1gbit", "500mbit").CombinedOutput(); err != nil {
		t.Skipf("cannot make rails: %v\n%s", err, b)
	}
	before := []int64{railRx(t, 1), railRx(t, 2)}
	t.Setenv(rankEnv, "rails")
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	out, errOut, code := plexus(t, "run", "--host", "h1,h2", "--rsh", agent, "-n", "2", "--rails", "10.252.0.0/16",
		"--timeout", "60s", "--", os.Args[0], "-test.run=^$")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "rank 1 received every message") {
		t.Errorf("rank 1 did not report its messages:\n%s", out)
	}
	total := int64(0)
	for _, n := range railMsgSizes {
		total += int64(n)
	}
	for k, b := range before {
		// Without a profile file the split starts even, then follows
		// what each rail delivers (the Link learns it from its acks):
		// the 500 Mbit rail carries about a third.
		if got := railRx(t, k+1) - b; got < total/8 {
			t.Errorf("rail %d received %d bytes of the %d sent; want a share", k+1, got, total)
		}
	}
}

// railRx is how many bytes rail k's interface on h2 has received.
func railRx(t *testing.T, k int) int64 {
	t.Helper()
	b, err := exec.Command("ip", "netns", "exec", "plexus-h2", "cat", fmt.Sprintf("/sys/class/net/rail%d/statistics/rx_bytes", k)).Output()
	if err != nil {
		t.Fatalf("rail %d on h2: %v", k, err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// railMsgSizes are the messages TestRunWithRails sends.
var railMsgSizes = []int{1 << 20, 4<<20 + 3, 16 << 20}

// railsRank is a rank of TestRunWithRails.
func railsRank() int {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	if err := sendOverRails(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func sendOverRails(ctx context.Context) error {
	w, err := comm.Join(ctx)
	if err != nil {
		return err
	}
	defer w.Close()
	for tag, n := range railMsgSizes {
		want := make([]byte, n)
		for i := range want {
			want[i] = byte(i*13 + tag + i>>16)
		}
		if w.Rank() == 0 {
			if err := w.Send(ctx, 1, tag, want); err != nil {
				return err
			}
			continue
		}
		buf := make([]byte, n)
		st, err := w.Recv(ctx, 0, tag, buf)
		if err != nil {
			return err
		}
		if st.Len != n || !bytes.Equal(buf, want) {
			return fmt.Errorf("rank 1: message %d: %d bytes, not the %d sent", tag, st.Len, n)
		}
	}
	// The ranks part only when rank 1 has checked everything.
	if w.Rank() == 0 {
		_, err = w.Recv(ctx, 1, len(railMsgSizes), make([]byte, 1))
		return err
	}
	fmt.Println("rank 1 received every message")
	return w.Send(ctx, 0, len(railMsgSizes), []byte{1})
}
