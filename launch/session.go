package launch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/plexus-hpc/plexus/transport/shm"
)

// session is one Run of a Job. Only Run's goroutine touches it, except
// outMu, which the ranks' output copiers share, and exits, on which each
// rank's waiter reports once.
type session struct {
	job           Job
	p             placement
	cpus          [][]int // per rank, the CPUs it is bound to, or nil
	hostCPUs      int     // CPUs the local ranks share, 0 if unknown
	jobID, secret string
	outMu         sync.Mutex
	exits         chan exit
	procs         []*exec.Cmd // started ranks, by rank
	alive         []bool      // started and not yet reported on exits
	rootFiles     []*os.File  // the launcher's copies of rank 0's listener
}

type exit struct {
	rank int
	err  error
}

func (s *session) run(ctx context.Context) error {
	defer s.releaseRoot()
	defer s.removeSegment()
	s.alive = make([]bool, s.job.N)
	for r := range s.job.N {
		if err := s.start(r); err != nil {
			failed := &ExitError{Rank: r, Err: err, Killed: s.aliveRanks()}
			s.wait(ctx, s.terminate())
			return failed
		}
	}
	return s.wait(ctx, nil)
}

// removeSegment removes the job's shared-memory segment on this host once
// every rank has ended, however the job ended: ranks remove it when they
// close, but a rank that fails or is killed leaves it behind, and the job
// id is fresh, so nothing else can be using it. Segments on other hosts
// are not reached from here. A plexus run job has no rendezvous file to
// remove: its ranks bootstrap through PLEXUS_ROOT.
func (s *session) removeSegment() {
	shm.RemoveSegment(shm.DefaultDir, s.jobID) //nolint:errcheck // best effort, as before
}

// start starts rank r and a goroutine that reports its end on exits.
func (s *session) start(r int) error {
	cmd := s.command(r)
	stdout, stderr := s.outputs(r)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	var err error
	if cpus := s.cpus[r]; cpus != nil {
		err = startBound(cmd, cpus)
	} else {
		err = cmd.Start()
	}
	if r == 0 {
		s.releaseRoot() // rank 0 holds its own copy of the listener now
	}
	if err != nil {
		return err
	}
	s.procs = append(s.procs, cmd)
	s.alive[r] = true
	go func() {
		err := cmd.Wait()
		stdout.Close()
		stderr.Close()
		if errors.Is(err, exec.ErrWaitDelay) {
			err = nil // it succeeded but left a child holding its output open
		}
		s.exits <- exit{r, err}
	}()
	return nil
}

// wait collects every started rank's exit, forwarding signals and ending
// the job on the first failure, the timeout or ctx's end. kill, when not
// nil, fires when the ranks already sent SIGTERM are due a SIGKILL.
func (s *session) wait(ctx context.Context, kill <-chan time.Time) error {
	var result error
	ending := kill != nil
	done := ctx.Done()
	for running := len(s.procs); running > 0; {
		select {
		case e := <-s.exits:
			running--
			s.alive[e.rank] = false
			if e.err != nil && !ending {
				result = &ExitError{Rank: e.rank, Err: e.err, Killed: s.aliveRanks()}
				ending, kill = true, s.terminate()
			}
		case sig := <-s.job.Signals:
			s.signal(sig)
		case <-done:
			done = nil
			if !ending {
				result = fmt.Errorf("%w; ended ranks %s", context.Cause(ctx), rankList(s.aliveRanks()))
				ending, kill = true, s.terminate()
			}
		case <-kill:
			kill = nil
			s.signal(os.Kill)
		}
	}
	return result
}

// terminate asks every running rank to stop and returns when to insist.
func (s *session) terminate() <-chan time.Time {
	s.signal(syscall.SIGTERM)
	return time.After(s.grace())
}

// signal sends sig to the process group of every running rank. A rank
// that has just exited is not an error.
func (s *session) signal(sig os.Signal) {
	for r, cmd := range s.procs {
		if s.alive[r] {
			signalGroup(cmd.Process.Pid, sig)
		}
	}
}

func (s *session) aliveRanks() []int {
	var ranks []int
	for r, a := range s.alive {
		if a {
			ranks = append(ranks, r)
		}
	}
	return ranks
}
