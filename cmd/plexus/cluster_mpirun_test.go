//go:build linux

package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// TestMPIRunOnTwoHosts runs the ranks of TestRunOnTwoHosts under Open
// MPI's mpirun, started on h1 as a user on a cluster's login node would:
//
//	export PLEXUS_SECRET=$(openssl rand -hex 32)
//	mpirun --host h1:2,h2:2 --mca plm_rsh_agent AGENT \
//		-x PLEXUS_ROOT=h1:7000 -x PLEXUS_SECRET -n 4 prog
//
// mpirun starts its daemon on h2 through the agent. The ranks learn
// rank 0's bootstrap address and the job secret from the two variables,
// the secret from the environment, not the command line.
func TestMPIRunOnTwoHosts(t *testing.T) {
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("no mpirun (Open MPI) here")
	}
	up(t, 2)
	agent, err := filepath.Abs("../../testdata/cluster/agent")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, agent, "h1", mpirun, "--allow-run-as-root", "--host", "h1:2,h2:2",
		"--mca", "plm_rsh_agent", agent, "--mca", "btl_tcp_if_include", "eth0", "--mca", "oob_tcp_if_include", "eth0",
		"-x", "PLEXUS_ROOT=h1:7000", "-x", "PLEXUS_SECRET", "-x", rankEnv+"=cluster", "-x", "GORACE=atexit_sleep_ms=0",
		"-n", "4", os.Args[0], "'-test.run=^$'")
	cmd.Env = append(os.Environ(), "PLEXUS_SECRET="+newSecret(t))
	cmd.WaitDelay = 5 * time.Second
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mpirun: %v\n%s", err, b)
	}
	checkHosts(t, tagRanks(string(b)), []string{"h1", "h1", "h2", "h2"})
}

// newSecret returns a fresh job secret in hex, as openssl rand -hex 32.
func newSecret(t *testing.T) string {
	t.Helper()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(key)
}

// tagRanks prefixes each line "rank R ..." with "[R] ", as plexus run
// prefixes a rank's output lines, so checkHosts reads mpirun's output.
func tagRanks(out string) string {
	return regexp.MustCompile(`(?m)^rank (\d+) `).ReplaceAllString(out, "[$1] rank $1 ")
}
