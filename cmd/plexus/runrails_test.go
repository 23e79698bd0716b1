package main

import (
	"io"
	"testing"
)

// TestRunRails checks that --rails reaches the job, tidied, and that a
// value that is no network is a usage error.
func TestRunRails(t *testing.T) {
	c := &cli{stdout: io.Discard, stderr: io.Discard, cmd: runCmd}
	job, err := new(runOpts).parse(c, []string{"--rails", "10.252.1.0/24, 10.252.2.0/24", "-n", "2", "./app"})
	if err != nil || job.Rails != "10.252.1.0/24,10.252.2.0/24" {
		t.Errorf("rails %q, %v; want the two networks", job.Rails, err)
	}
	if _, err := new(runOpts).parse(c, []string{"--rails", "eth1", "./app"}); err == nil {
		t.Errorf("--rails eth1 was accepted")
	}
	if job, err := new(runOpts).parse(c, []string{"./app"}); err != nil || job.Rails != "" {
		t.Errorf("without --rails: rails %q, %v", job.Rails, err)
	}
}
