//go:build linux

package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/transport/frame"
	"github.com/plexus-hpc/plexus/transport/tcp"
)

// TestRunRefusesStranger: a process on a third namespace host h3, not
// part of the job, dials rank 0's data port on h1 as "rank 1" with a
// secret of its own while a 4-rank job runs on h1 and h2. It is refused
// (tcp.ErrAuth), rank 0 logs the refusal with h3's address, and the job
// goes on: the ranks exchange again and plexus run exits 0.
func TestRunRefusesStranger(t *testing.T) {
	dir, hostfile, agent := twoHostJob(t, 3)
	goFile := filepath.Join(dir, "go")
	t.Setenv(rankEnv, "fault-stranger")
	t.Setenv("PLEXUS_CMD_TEST_GO", goFile)
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	out := &readyWriter{want: 4, ready: make(chan struct{})}
	errOut := &readyWriter{}
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"run", "--hostfile", hostfile, "--rsh", agent, "-n", "4", "--timeout", "20s",
			"--", os.Args[0], "-test.run=^$"}, out, errOut)
	}()
	select {
	case <-out.ready:
	case code := <-done:
		t.Fatalf("plexus run exit %d before the stranger\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	case <-time.After(25 * time.Second):
		t.Fatalf("ranks not ready after 25s\nstdout:\n%s", out.String())
	}
	addr := "10.251.0.1:" + dataPort(t, agent, out.pids()[0])
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	b, err := exec.CommandContext(ctx, agent, "h3", "env", rankEnv+"=stranger", "PLEXUS_CMD_TEST_ADDR="+addr,
		os.Args[0], "-test.run=^$").CombinedOutput()
	t.Logf("stranger on h3 dialling %s: %s", addr, b)
	if !strings.Contains(string(b), "stranger refused") {
		t.Errorf("the stranger on h3 dialling %s was not refused (%v):\n%s", addr, err, b)
	}
	if err := os.WriteFile(goFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var code int
	select {
	case code = <-done:
	case <-time.After(25 * time.Second):
		t.Fatalf("plexus run still running 25s after the stranger\nstdout:\n%s", out.String())
	}
	if code != exitOK {
		t.Errorf("plexus run exit %d, want 0: the stranger stopped the job\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	if !regexp.MustCompile(`(?m)^\[0\] .*tcp: refused connection.*10\.251\.0\.3`).MatchString(errOut.String()) {
		t.Errorf("rank 0 did not log refusing h3 (10.251.0.3):\n%s", errOut.String())
	}
	for r := range 4 {
		if !strings.Contains(out.String(), fmt.Sprintf("[%d] rank %d done\n", r, r)) {
			t.Errorf("rank %d did not finish its second exchange:\n%s", r, out.String())
		}
	}
}

// dataPort returns the TCP port process pid listens on at h1, as ss
// lists it: a rank's one listener once Join returned (rank 0's bootstrap
// listener closes after the exchange).
func dataPort(t *testing.T, agent string, pid int) string {
	t.Helper()
	b, err := exec.Command(agent, "h1", "ss", "-Htlnp").CombinedOutput()
	if err != nil {
		t.Fatalf("ss on h1: %v\n%s", err, b)
	}
	var ports []string
	for _, m := range regexp.MustCompile(`:(\d+) .*pid=(\d+),`).FindAllStringSubmatch(string(b), -1) {
		if m[2] == fmt.Sprint(pid) {
			ports = append(ports, m[1])
		}
	}
	if len(ports) != 1 {
		t.Fatalf("rank 0 (pid %d) listens on ports %q on h1, want one:\n%s", pid, ports, b)
	}
	return ports[0]
}

// strangerDial is the stranger of TestRunRefusesStranger: it claims to
// be rank 1 of the job listening at $PLEXUS_CMD_TEST_ADDR, with a secret
// of its own, and says how that went.
func strangerDial() int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	secret := make([]byte, 32)
	rand.Read(secret)
	addr := os.Getenv("PLEXUS_CMD_TEST_ADDR")
	ep, err := tcp.Listen(tcp.Config{Rank: 1, Size: 4, JobID: "plexus", Secret: secret,
		Addrs:   func(int) (string, error) { return addr, nil },
		Deliver: func(int, frame.Header, []byte) {}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Println("stranger could not listen:", err)
		return 1
	}
	defer ep.Close()
	err = ep.Send(ctx, 0, frame.Header{Kind: frame.Eager, Tag: 5, Aux: 6}, []byte("forged"))
	if errors.Is(err, tcp.ErrAuth) {
		fmt.Printf("stranger refused: %v\n", err)
		return 0
	}
	fmt.Printf("stranger not refused: %v\n", err)
	return 1
}

// strangerRank is a rank of TestRunRefusesStranger: it exchanges
// greetings with every rank, says it is ready, waits for the test's go
// (the stranger came and went) and exchanges again.
func strangerRank() int {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w, err := comm.Join(ctx)
	if err == nil {
		defer w.Close()
		err = greetAll(ctx, w)
	}
	if err == nil {
		fmt.Printf("rank %d pid %d ready\n", w.Rank(), os.Getpid())
		for _, err := os.Stat(os.Getenv("PLEXUS_CMD_TEST_GO")); err != nil && ctx.Err() == nil; _, err = os.Stat(os.Getenv("PLEXUS_CMD_TEST_GO")) {
			time.Sleep(20 * time.Millisecond)
		}
		err = greetAll(ctx, w)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("rank %d done\n", w.Rank())
	return 0
}
