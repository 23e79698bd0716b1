package gasrank

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/internal/cliflag"
)

// ErrUsage reports options Run cannot run with.
var ErrUsage = errors.New("gasrank: bad options")

type options struct {
	bench     string
	mode      string
	transport string
	n         int
	log       int
	timeout   time.Duration
	profile   string // -cpuprofile: FILE, written as FILE.RANK
}

// Run is one rank of a job: it joins the world of the job it was started
// in (comm.JoinWith), runs the case args name with packages am and pgas,
// and, on rank 0, writes one bench.PeerLine per result to stdout. It
// returns flag.ErrHelp for -h (the usage goes to stderr), an error
// wrapping ErrUsage for bad options, and ctx's error or the world's when
// the job fails.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	return run(ctx, o, stdout)
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("gasrank", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.bench, "bench", "am", "am, delegate_latency or gups")
	fs.StringVar(&o.mode, "mode", "aggregated", "am's mode: aggregated or direct")
	fs.StringVar(&o.transport, "transport", "tcp", "transport between ranks: tcp or shm")
	fs.IntVar(&o.n, "n", 100000, "timed operations (per rank for gups)")
	fs.IntVar(&o.log, "log", 24, "gups: the global array holds 2^`LOG` int64")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "give up after this long")
	fs.StringVar(&o.profile, "cpuprofile", "", "write each rank's CPU profile of the case to `FILE`.RANK")
	if err := cliflag.Parse(fs, args, ErrUsage); err != nil {
		return o, err
	}
	return o, o.check()
}

func (o options) check() error {
	switch {
	case o.n < 1 || o.log < 10 || o.log > 30:
		return fmt.Errorf("%w: -n %d, -log %d: want n ≥ 1 and 10 ≤ log ≤ 30", ErrUsage, o.n, o.log)
	case o.mode != "aggregated" && o.mode != "direct":
		return fmt.Errorf("%w: -mode %q: want aggregated or direct", ErrUsage, o.mode)
	case o.bench != "am" && o.bench != "delegate_latency" && o.bench != "gups":
		return fmt.Errorf("%w: -bench %q: want am, delegate_latency or gups", ErrUsage, o.bench)
	case o.transport != comm.TransportTCP && o.transport != comm.TransportSHM:
		return fmt.Errorf("%w: -transport %q: want tcp or shm", ErrUsage, o.transport)
	}
	return nil
}
