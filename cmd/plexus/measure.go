package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/topo/measure"
	"github.com/plexus-hpc/plexus/topo/sysfs"
)

var measureCmd = &command{
	name:    "machine measure",
	summary: "measure this machine's pairwise send/receive costs (Smelt's benchmark)",
	usage: `machine measure [--cpus LIST] [--quick] [--reps N] [--no-loaded] [-o FILE]

Discovers this machine from /sys, then runs Smelt's pairwise benchmark on
every ordered pair of the CPUs in --cpus (all the process may use by
default): a sender thread pinned to one CPU and a receiver pinned to the
other time batches of 8 sends and of 8 receives of already-queued messages
over a fresh message ring, --reps times; the largest 10% of samples are
dropped and the rest averaged (see package topo/measure for the method).
Then, unless --no-loaded, every pair's round trip is timed again with every
CPU busy (the pairs in the rounds of a round-robin tournament, each round's
pairs at once), which gives the model's latency under load: what half a
loaded round trip leaves after the sends and receives, the time a message
spends in flight between busy CPUs, which the tree simulator adds per hop.
Prints the machine with the measured costs, as 'plexus machine' does, and
with -o writes the model file that --model reads. Interrupt to stop.`,
	flags: func() *flag.FlagSet { return new(measureOpts).flagSet() },
	run:   runMeasure,
}

type measureOpts struct {
	cpus     string
	quick    bool
	reps     int
	noLoaded bool
	out      string
}

func (o *measureOpts) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("machine measure", flag.ContinueOnError)
	fs.StringVar(&o.cpus, "cpus", "", "CPUs to measure as a `LIST` such as 0-7,16 (default all allowed)")
	fs.BoolVar(&o.quick, "quick", false, fmt.Sprintf("fewer repetitions (%d instead of %d) for a rough model", measure.QuickReps, measure.DefaultReps))
	fs.IntVar(&o.reps, "reps", 0, "timed repetitions per ordered pair `N` (default 200, 20 with --quick)")
	fs.BoolVar(&o.noLoaded, "no-loaded", false, "skip the loaded phase: a model without latency under load")
	fs.StringVar(&o.out, "o", "", "write the measured model to `FILE` (JSON, for --model)")
	return fs
}

func runMeasure(c *cli, args []string) error {
	o := new(measureOpts)
	if err := c.parse(o.flagSet(), args); err != nil {
		return err
	}
	if err := outputDir("-o", o.out); err != nil {
		return usagef("%v", err)
	}
	m, err := sysfs.Local()
	if err != nil {
		return err
	}
	cfg, err := o.config(m)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	p := newProgress(c.stderr, "measure "+m.Name)
	r, err := measure.Pairwise(ctx, cfg, p.update)
	p.finish()
	if err != nil {
		return err
	}
	merged, err := measure.Merge(m, r)
	if err != nil {
		return err
	}
	writeMeasured(c.stdout, merged, r)
	if o.out == "" {
		return nil
	}
	if err := writeFile(o.out, merged.Save); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "\nwrote %s\n", o.out)
	return nil
}

// config turns the flags into a measure.Config, reporting bad values as
// usage errors.
func (o *measureOpts) config(m *topo.Model) (measure.Config, error) {
	cfg := measure.Config{Reps: o.reps, Quick: o.quick, SkipLoaded: o.noLoaded}
	if o.reps < 0 {
		return cfg, usagef("--reps: %d is negative", o.reps)
	}
	if o.cpus != "" {
		ids, err := parseCPUs(m, o.cpus)
		if err != nil {
			return cfg, err
		}
		cfg.CPUs = ids
	}
	if err := cfg.Validate(); errors.Is(err, measure.ErrTooFewCPUs) {
		return cfg, usagef("--cpus: %v", err)
	} else if err != nil {
		return cfg, err
	}
	return cfg, nil
}

// writeMeasured prints what plexus machine prints for the merged model,
// then the method and the round trips the model has no place for.
func writeMeasured(w io.Writer, m *topo.Model, r *measure.Result) {
	writeMachine(w, m)
	if m.N() <= fullMatrixLimit {
		writeMatrix(w, "send cost (ns), row = sender, column = receiver", m, m.Send.Mean)
		writeMatrix(w, "receive cost (ns), row = sender, column = receiver", m, m.Recv.Mean)
		writeMatrix(w, "round trip (ns), row = sender, column = echoer", m, r.RTT.Mean)
		if r.Latency != nil {
			writeMatrix(w, "round trip under load (ns), every CPU busy", m, r.LoadedRTT.Mean)
			writeMatrix(w, "latency under load (ns), beyond send and receive", m, r.Latency.Mean)
		}
	}
	n := len(r.CPUs)
	fmt.Fprintf(w, "\nmeasured %d ordered pairs × %d repetitions (batch %d, %d warm-up) in %s; clock reading %.0f ns\n",
		n*(n-1), r.Config.Reps, r.Config.Batch, r.Config.Warmup, r.Elapsed.Round(time.Millisecond), r.ClockNs)
	if r.Latency != nil {
		fmt.Fprintf(w, "loaded phase (every unordered pair, all CPUs busy): %s of that\n",
			r.LoadedElapsed.Round(time.Microsecond))
	}
}
