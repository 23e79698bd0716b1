//go:build linux

package comm

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/launch"
	"github.com/plexus-hpc/plexus/transport/frame"
	"github.com/plexus-hpc/plexus/transport/tcp"
)

// The stranger test replays the attack of issue 14 with the real cast: a
// two-rank job of root's under Open MPI's mpirun (no PLEXUS_SECRET, so the
// ranks meet through the rendezvous file), and user nobody, who knows the
// job id and rank 0's data address (both public: squeue or ps, and
// /proc/net/tcp), dialling rank 0 as rank 1 with every key it can compute.

// strangerEnv names the role of this test binary when the stranger test
// starts it: "rank" (under mpirun) or "stranger" (as nobody).
const strangerEnv = "COMM_STRANGER_ROLE"

// TestStrangerRole is a process of the stranger test; run by itself it
// does nothing.
func TestStrangerRole(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	var err error
	switch os.Getenv(strangerEnv) {
	case "":
		t.Skip("a process of TestStrangerUnderMPIRun; started by it")
	case "rank":
		err = strangerJobRank(ctx)
	case "stranger":
		strangerDial(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// strangerJobRank is one rank of the attacked job. Rank 0 prints its data
// address and job id, then receives one message from anyone and prints
// it; rank 1 sends "honest" once the test says the stranger is done.
func strangerJobRank(ctx context.Context) error {
	w, err := JoinWith(ctx, Config{Transport: TransportTCP})
	if err != nil {
		return err
	}
	defer w.Close()
	if w.Rank() == 1 {
		waitForFile(ctx, os.Getenv("COMM_STRANGER_GO"))
		return w.Send(ctx, 0, 5, []byte("honest"))
	}
	info, err := launch.Detect(os.Getenv)
	if err != nil {
		return err
	}
	fmt.Printf("addr %s job %s\n", w.t.(*tcp.Endpoint).Addr(), jobID(info))
	buf := make([]byte, 64)
	st, err := w.Recv(ctx, AnySource, 5, buf)
	fmt.Printf("got %q from %d: %v\n", buf[:st.Len], st.Source, err)
	return err
}

func waitForFile(ctx context.Context, path string) {
	for ctx.Err() == nil {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// strangerDial is the stranger: it claims rank 1 with the key the old
// derivation gave (from the job id and the uid) and reports what
// happened.
func strangerDial(ctx context.Context) {
	job, addr := os.Getenv("COMM_STRANGER_JOB"), os.Getenv("COMM_STRANGER_ADDR")
	derived := sha256.Sum256([]byte("plexus data " + job + " " + os.Getenv("COMM_STRANGER_UID") + " "))
	ep, err := tcp.Listen(tcp.Config{Rank: 1, Size: 2, JobID: job, Secret: derived[:],
		Addrs:   func(int) (string, error) { return addr, nil },
		Deliver: func(int, frame.Header, []byte) {}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Println("stranger could not listen:", err)
		return
	}
	defer ep.Close()
	forged := []byte("forged")
	err = ep.Send(ctx, 0, frame.Header{Kind: frame.Eager, Comm: commWorld, Tag: 5, Aux: uint64(len(forged))}, forged)
	switch {
	case errors.Is(err, tcp.ErrAuth):
		fmt.Printf("stranger refused: %v\n", err)
	case err != nil:
		fmt.Printf("stranger failed: %v\n", err)
	default:
		fmt.Println("stranger delivered")
	}
}

// TestStrangerUnderMPIRun: user nobody, knowing the job id and rank 0's
// address, cannot authenticate to a job of root's started by mpirun, is
// told nothing about the job, delivers nothing, and the real rank 1 still
// gets through. Needs root, setpriv and Open MPI; skipped without them.
func TestStrangerUnderMPIRun(t *testing.T) {
	mpirun, setpriv := strangerTools(t)
	bin := publicCopy(t, os.Args[0])
	tmp, goFile := t.TempDir(), filepath.Join(t.TempDir(), "go")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	job := exec.CommandContext(ctx, mpirun, "--allow-run-as-root", "--oversubscribe", "-n", "2",
		bin, "-test.run=^TestStrangerRole$", "-test.count=1")
	job.Env = append(strangerBaseEnv(), strangerEnv+"=rank", "TMPDIR="+tmp, "COMM_STRANGER_GO="+goFile)
	lines := startLines(t, job)
	addr, jobName := awaitAddr(t, ctx, lines)

	stranger := exec.CommandContext(ctx, setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
		bin, "-test.run=^TestStrangerRole$", "-test.count=1")
	stranger.Env = append(strangerBaseEnv(), strangerEnv+"=stranger", "COMM_STRANGER_JOB="+jobName,
		"COMM_STRANGER_ADDR="+addr, "COMM_STRANGER_UID="+strconv.Itoa(os.Getuid()))
	out, err := stranger.CombinedOutput()
	t.Logf("stranger (uid 65534): %s", out)
	if err != nil || !strings.Contains(string(out), "stranger refused") {
		t.Errorf("the stranger was not refused (%v):\n%s", err, out)
	}
	if strings.Contains(string(out), jobName) {
		t.Errorf("the refusal told the stranger the job id %q:\n%s", jobName, out)
	}
	if err := os.WriteFile(goFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	got := awaitLine(t, ctx, lines, "got ")
	if got != `got "honest" from 1: <nil>` {
		t.Errorf("rank 0 %s; want rank 1's honest message", got)
	}
	if err := job.Wait(); err != nil {
		t.Errorf("mpirun: %v", err)
	}
}

// strangerTools returns mpirun and setpriv, or skips the test.
func strangerTools(t *testing.T) (string, string) {
	if os.Getuid() != 0 {
		t.Skip("needs root, to run the stranger as user nobody")
	}
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("mpirun is not installed (apt-get install openmpi-bin)")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv is not installed (util-linux)")
	}
	return mpirun, setpriv
}

// publicCopy copies the test binary where user nobody may run it: the
// build's own directory is private to root.
func publicCopy(t *testing.T, bin string) string {
	dir, err := os.MkdirTemp("", "plexus-stranger-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	data, err := os.ReadFile(bin)
	if err == nil {
		err = os.Chmod(dir, 0o755)
	}
	dst := filepath.Join(dir, "comm.test")
	if err == nil {
		err = os.WriteFile(dst, data, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// strangerBaseEnv is this environment without what would tell a process
// it is a rank of some job, or which role it plays.
func strangerBaseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "PLEXUS_") && !strings.HasPrefix(name, "OMPI_") &&
			!strings.HasPrefix(name, "PMIX_") && !strings.HasPrefix(name, "COMM_") && name != "TMPDIR" {
			env = append(env, kv)
		}
	}
	return append(env, "GORACE=atexit_sleep_ms=0")
}

// startLines starts cmd and returns its output, stdout and stderr
// merged, line by line.
func startLines(t *testing.T, cmd *exec.Cmd) <-chan string {
	r, w := io.Pipe()
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); w.Close() })
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// awaitAddr waits for rank 0's line with its address and job id.
func awaitAddr(t *testing.T, ctx context.Context, lines <-chan string) (addr, job string) {
	f := strings.Fields(awaitLine(t, ctx, lines, "addr "))
	if len(f) != 4 {
		t.Fatalf("rank 0 said %q, want addr ADDR job JOB", f)
	}
	return f[1], f[3]
}

// awaitLine returns the first line that starts with prefix, logging the
// others.
func awaitLine(t *testing.T, ctx context.Context, lines <-chan string, prefix string) string {
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the job ended before a line starting %q", prefix)
			}
			if strings.HasPrefix(l, prefix) {
				return l
			}
			t.Logf("job: %s", l)
		case <-ctx.Done():
			t.Fatalf("no line starting %q: %v", prefix, ctx.Err())
		}
	}
}
