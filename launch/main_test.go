package launch

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
	"github.com/plexus-hpc/plexus/transport/shm"
)

// helperEnv makes the test binary act as a rank program instead of
// running tests: the TestMain re-exec pattern, so that Run and mpirun
// tests need no separately built program.
const helperEnv = "LAUNCH_TEST_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helper(mode))
	}
	os.Exit(m.Run())
}

// helper is a rank: detect, join, print one line with what it learnt.
// In mode "fail", rank 1 then exits 3 and the others sleep, to be killed.
func helper(mode string) int {
	if mode == "affinity" {
		return printAffinity()
	}
	info, err := Detect(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if mode == "shm-fail" {
		return shmFail(info)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	book, err := Join(ctx, info, fmt.Sprintf("data-%d", info.Rank))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("rank %d of %d launcher %s local %d/%d job %s book %s\n", info.Rank, info.Size,
		info.Launcher, info.LocalRank, info.LocalSize, info.JobID, strings.Join(book.Addrs, ","))
	fmt.Fprintf(os.Stderr, "stderr of rank %d", info.Rank) // no newline: Run adds one
	if mode == "fail" {
		if info.Rank == 1 {
			return 3
		}
		time.Sleep(60 * time.Second)
	}
	return 0
}

// shmFail is a rank that opens the job's shared-memory segment and then
// fails (rank 1, exit 3) or waits to be killed (the others), so that no
// rank removes the segment.
func shmFail(info Info) int {
	e, err := shm.Open(shm.Config{Rank: info.Rank, Size: info.Size, JobID: info.JobID,
		Deliver: func(int, frame.Header, []byte) {}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("segment %s\n", e.Path())
	if info.Rank == 1 {
		return 3
	}
	time.Sleep(60 * time.Second)
	return 0
}

// helperJob is a Job that runs the test binary as n helper ranks.
func helperJob(n int, mode string) Job {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, helperEnv+"=") {
			env = append(env, kv)
		}
	}
	// Under -race a process otherwise lingers a second at exit.
	env = append(env, helperEnv+"="+mode, "GORACE=atexit_sleep_ms=0")
	return Job{N: n, Prog: os.Args[0], Args: []string{"-test.run=^$"}, Env: env}
}
