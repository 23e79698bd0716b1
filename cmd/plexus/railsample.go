package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/plexus-hpc/plexus/rail"
	"github.com/plexus-hpc/plexus/transport/multirail"
)

func init() { addCommand(railSampleCmd) }

var railSampleCmd = &command{
	name:    "rail sample",
	summary: "sample the rails (network links) between two hosts and write their profile",
	usage: `rail sample [--host HOSTS] [--hostfile FILE] [--rsh CMD] [--rails CIDRS] [--max BYTES] [--out FILE]

Runs a job of two ranks, one on each of two hosts named by --host or
--hostfile, as plexus run does
(--host, --hostfile and --rsh as there), each this binary as the verb
"plexus rail sample rank" (which mpirun or srun may start directly).
The ranks find every rail between the hosts (each address of the second
host inside a network of the first, or only those inside --rails, default
$PLEXUS_RAILS), connect over each, authenticated by a secret drawn for the
job, and the first host times transfers of powers of two from 4 B to
--max over each rail: the longer of half a ping-pong and the time per
message of a stream, NewMadeleine's samples. It prints each rail's
latency and bandwidth, then samples sizes halfway between the powers of
two again and prints how far the interpolated predictions are from them.
--out writes the profiles as a rail.File on the first host.`,
	flags: func() *flag.FlagSet { return new(railSampleOpts).flagSet() },
	run:   runRailSample,
}

type railSampleOpts struct {
	host, hostfile, rsh, rails, out string
	max                             int
}

func (o *railSampleOpts) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("rail sample", flag.ContinueOnError)
	fs.StringVar(&o.host, "host", "", "the two `HOSTS`, comma-separated")
	fs.StringVar(&o.hostfile, "hostfile", "", "`FILE` of hosts, as for plexus run (the first two are used)")
	fs.StringVar(&o.rsh, "rsh", "", "`CMD` that runs a rank on another host, as for plexus run")
	fs.StringVar(&o.rails, "rails", os.Getenv("PLEXUS_RAILS"), "only rails inside these `CIDRS`, comma-separated")
	fs.IntVar(&o.max, "max", 8<<20, "largest sample, `BYTES`")
	fs.StringVar(&o.out, "out", "", "write the profiles to `FILE` (on the first host)")
	return fs
}

func runRailSample(c *cli, args []string) error {
	o := new(railSampleOpts)
	fs := o.flagSet()
	only, isRank, err := parseRailArgs(c, fs, args, &o.rails)
	if err != nil {
		return err
	}
	if o.max < 4 || o.max > 64<<20 {
		return usagef("--max %d: want 4 to %d", o.max, 64<<20)
	}
	if isRank {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		return sampleRank(ctx, c, o, only)
	}
	return launchRailJob(c, "rail sample", o.host, o.hostfile, o.rsh, railJobLimit, rankFlags(fs))
}

// rankFlags is the command line of the flags set on fs, for the ranks.
func rankFlags(fs *flag.FlagSet) []string {
	var out []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "host", "hostfile", "rsh":
			return
		}
		out = append(out, "--"+f.Name+"="+f.Value.String())
	})
	return out
}

// railJobLimit is how long a job of plexus rail sample, or a round of
// plexus bench rail's, may take before it is ended as failed: a round
// of every impl and case, the competing flow's too, takes minutes on
// shaped rails of a gigabit.
const railJobLimit = 10 * time.Minute

// launchRailJob runs "plexus run -n 2" of this binary's "CMD rank FLAGS"
// on the hosts given, ended as failed after limit.
func launchRailJob(c *cli, cmdName, host, hostfile, rsh string, limit time.Duration, flags []string) error {
	if _, err := railHosts(host, hostfile); err != nil {
		return err
	}
	exe, err := selfRank("x")
	if err != nil {
		return err
	}
	argv := []string{"run", "-n", "2", "--timeout", limit.String()}
	if host != "" {
		argv = append(argv, "--host", host)
	} else {
		argv = append(argv, "--hostfile", hostfile)
	}
	if rsh != "" {
		argv = append(argv, "--rsh", rsh)
	}
	argv = append(append(append(argv, "--", exe[0]), strings.Fields(cmdName)...), rankVerb)
	argv = append(argv, flags...)
	if code := run(argv, c.stdout, c.stderr); code != exitOK {
		return fmt.Errorf("the job of two ranks failed (plexus run exited %d)", code)
	}
	return nil
}

// sampleRank is one rank of plexus rail sample.
func sampleRank(ctx context.Context, c *cli, o *railSampleOpts, only []*net.IPNet) error {
	w, s, done, err := joinRails(ctx, only)
	if err != nil {
		return err
	}
	defer done()
	if w.Rank() > 1 {
		return nil
	}
	conns, err := s.connect(ctx)
	if err != nil {
		return err
	}
	defer func() {
		for _, cn := range conns {
			cn.Close()
		}
	}()
	if w.Rank() == 1 {
		for _, cn := range conns {
			if err := multirail.Echo(cn); err != nil {
				return err
			}
			if err := multirail.Echo(cn); err != nil { // the check's samples
				return err
			}
		}
		return nil
	}
	return sampleAll(ctx, c, o, s, conns)
}

// sampleAll is rank 0's work: sample each rail, check the predictions,
// print, write.
func sampleAll(ctx context.Context, c *cli, o *railSampleOpts, s *railSession, conns []net.Conn) error {
	var sizes, mids []int
	for n := 4; n <= o.max; n *= 2 {
		sizes = append(sizes, n)
		if 2*n <= o.max {
			mids = append(mids, n+n/2)
		}
	}
	f := rail.File{Local: hostName(), Remote: s.rails[0].Remote}
	var errs [][]float64
	var mids2 []int
	for k, cn := range conns {
		fmt.Fprintf(c.stderr, "sampling rail %d of %d (%s > %s)\n", k+1, len(conns), s.rails[k].Local, s.rails[k].Remote)
		samples, err := multirail.Sample(ctx, cn, multirail.SampleConfig{Sizes: sizes, Reps: 10})
		if err != nil {
			return err
		}
		p, err := rail.NewProfile(s.rails[k].Local+">"+s.rails[k].Remote, samples)
		if err != nil {
			return err
		}
		fresh, err := multirail.Sample(ctx, cn, multirail.SampleConfig{Sizes: mids, Reps: 10})
		if err != nil {
			return err
		}
		f.Rails = append(f.Rails, p)
		errs = append(errs, rail.PredictionError(p, fresh))
		mids2 = mids
	}
	writeRailTable(c.stdout, f, errs, mids2)
	if o.out == "" {
		return nil
	}
	out, err := os.Create(o.out)
	if err != nil {
		return err
	}
	if err := rail.WriteFile(out, f); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func hostName() string {
	h, _ := os.Hostname()
	return h
}

// writeRailTable prints each rail's latency, bandwidths and prediction
// errors.
func writeRailTable(w io.Writer, f rail.File, errs [][]float64, sizes []int) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "rail\tlocal > remote\t4 B (µs)\t64 KiB (Mbit/s)\t1 MiB (Mbit/s)\tlargest (Mbit/s)\tprediction error (worst, at, mean |e|)")
	for k, p := range f.Rails {
		last := p.Samples[len(p.Samples)-1].Size
		mean, at := 0.0, 0
		for i, e := range errs[k] {
			mean += max(e, -e)
			if max(e, -e) == rail.WorstError(errs[k]) {
				at = sizes[i]
			}
		}
		if len(errs[k]) > 0 {
			mean /= float64(len(errs[k]))
		}
		fmt.Fprintf(tw, "%d\t%s\t%.1f\t%.0f\t%.0f\t%.0f\t%+.1f%%, %d B, %.1f%%\n", k+1, p.Name, float64(p.Predict(4).Nanoseconds())/1e3,
			p.Bandwidth(64<<10)*8/1e6, p.Bandwidth(1<<20)*8/1e6, p.Bandwidth(last)*8/1e6, 100*signedWorst(errs[k]), at, 100*mean)
	}
	tw.Flush()
}

// signedWorst is the error of largest magnitude, with its sign.
func signedWorst(errs []float64) float64 {
	w := 0.0
	for _, e := range errs {
		if max(e, -e) > max(w, -w) {
			w = e
		}
	}
	return w
}
