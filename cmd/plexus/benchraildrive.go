package main

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/plexus-hpc/plexus/rail"
	"github.com/plexus-hpc/plexus/transport/multirail"
)

// railDriver is rank 0 of plexus bench rail.
type railDriver struct {
	c        *cli
	o        *benchRailOpts
	s        *railSession
	sizes    railSizes
	profiles []rail.Profile
	fast     int
	// sameKernel: both ranks' hosts run on one kernel; mpiNote says how
	// Open MPI was told.
	sameKernel bool
	mpiNote    string
	tally      *railTally // the cases' runs, over the rounds
}

// driveRails samples the rails, runs every case of every impl, and
// prints the rows; the job ends with rank 1 told so, even after a failure.
func driveRails(ctx context.Context, c *cli, o *benchRailOpts, impls []string, s *railSession) error {
	d := &railDriver{c: c, o: o, s: s, sizes: o.railSizes(), tally: newRailTally()}
	var peerBoot string
	err := railRecv(ctx, s.w, 1, tagRailKernel, &peerBoot)
	d.sameKernel = peerBoot != "" && peerBoot == bootID()
	if err == nil {
		err = d.run(ctx, impls)
	}
	if e := railSend(ctx, s.w, 1, tagRailCase, railCase{}); err == nil {
		err = e
	}
	return err
}

func (d *railDriver) run(ctx context.Context, impls []string) error {
	fmt.Fprintf(d.c.stderr, "sampling %d rails\n", len(d.s.rails))
	var err error
	if d.profiles, err = sampleRails(ctx, d.s, d.sizes.sampleMax); err != nil {
		return err
	}
	d.fast = fastest(d.profiles)
	for k, p := range d.profiles {
		fmt.Fprintf(d.c.stderr, "rail %d %s: %.0f Mbit/s at 1 MiB, %.0f at 8 MiB\n", k+1, p.Name, p.Bandwidth(1<<20)*8/1e6, p.Bandwidth(8<<20)*8/1e6)
	}
	for _, size := range d.sizes.bw {
		d.emit(railRow{Bench: "bandwidth", Impl: "ideal", Size: size, Value: idealRate(d.profiles, size) * 8 / 1e6, Unit: "Mbit/s"})
	}
	for round := 1; round <= d.o.runs; round++ {
		for _, bench := range d.phases() {
			for _, impl := range impls {
				if d.o.runs > 1 {
					fmt.Fprintf(d.c.stderr, "round %d of %d: ", round, d.o.runs)
				}
				if err := d.impl(ctx, impl, bench); err != nil {
					return fmt.Errorf("%s: %w", impl, err)
				}
			}
		}
	}
	for _, r := range d.tally.rows() {
		d.emit(r)
	}
	return nil
}

// phases are the benches a round runs, in order. A round runs every
// impl's latency cases before any bandwidth case, so that the latencies
// it compares are measured seconds apart, not minutes: this machine's
// speed drifts by as much as the impls differ (docs/design/rails.md,
// "Measuring it: plexus bench rail").
func (d *railDriver) phases() []string {
	var out []string
	if len(d.sizes.lat) > 0 {
		out = append(out, "latency")
	}
	if len(d.sizes.bw) > 0 {
		out = append(out, "bandwidth")
	}
	return out
}

// impl runs one impl's cases of bench.
func (d *railDriver) impl(ctx context.Context, impl, bench string) error {
	fmt.Fprintf(d.c.stderr, "running %s %s\n", impl, bench)
	if impl == "openmpi" {
		return d.openmpi(ctx, bench)
	}
	if impl == "mptcp" {
		if note := mptcpMissing(); note != "" {
			if bench == d.phases()[0] { // noted once
				d.emit(railRow{Bench: "bandwidth", Impl: impl, Note: note})
			}
			return nil
		}
	}
	if bench == "latency" {
		return d.latencyCases(ctx, impl)
	}
	return d.bandwidthCases(ctx, impl)
}

func (d *railDriver) latencyCases(ctx context.Context, impl string) error {
	for _, agg := range []bool{false, true} {
		for _, size := range d.sizes.lat {
			cs := railCase{Bench: "latency", Impl: impl, Size: size, Warm: d.sizes.latIters/10 + 1, Count: d.sizes.latIters, Aggregated: agg}
			if err := d.one(ctx, cs); err != nil {
				return err
			}
		}
	}
	return nil
}

// bandwidthCases runs impl's bandwidth cases. A case warms up with a
// window of messages untimed, as bench/peers/railbw.c does for Open MPI:
// the Link's fresh connections past TCP's slow start, its learnt
// slowdowns settled.
func (d *railDriver) bandwidthCases(ctx context.Context, impl string) error {
	for _, compete := range d.competeModes() {
		for _, size := range d.sizes.bw {
			count := max(4, d.sizes.bytes/size)
			cs := railCase{Bench: "bandwidth", Impl: impl, Size: size, Warm: window(size), Count: count, Compete: compete}
			if err := d.one(ctx, cs); err != nil {
				return err
			}
		}
	}
	return nil
}

func (d *railDriver) competeModes() []int {
	if d.o.compete {
		return []int{0, 1}
	}
	return []int{0}
}

// one runs one case once, for this round, unless it failed in an
// earlier one.
func (d *railDriver) one(ctx context.Context, cs railCase) error {
	cs.Fast, cs.Profiles, cs.Slice = d.fast, d.profiles, d.o.slice
	if d.tally.skip(railRow{Bench: cs.Bench, Impl: cs.Impl, Size: cs.Size, Compete: cs.Compete > 0, Aggregated: cs.Aggregated}) {
		return nil
	}
	r, err := d.once(ctx, cs)
	if err != nil {
		return err
	}
	d.tally.add(r)
	return nil
}

// once runs one case once; a failure of the case is the row's note, an
// error only where rank 1 cannot be told or answer.
func (d *railDriver) once(ctx context.Context, cs railCase) (railRow, error) {
	if err := railSend(ctx, d.s.w, 1, tagRailCase, cs); err != nil {
		return railRow{}, err
	}
	var t time.Duration
	var closer func()
	var note string
	var err error
	limit := caseLimit(cs)
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	switch cs.Impl {
	case "mptcp":
		t, closer, note, err = d.mptcpCase(cctx, cs)
	case "tcp", "tcppoll":
		t, closer, err = d.tcpCase(cctx, cs)
	default:
		t, closer, err = d.linkCase(cctx, cs)
	}
	if err != nil && ctx.Err() == nil && cctx.Err() != nil {
		err = fmt.Errorf("not done within the case's limit of %v: %w", limit, err)
	}
	if err != nil && closer != nil { // rank 1 may wait for messages that will not come
		closer()
		closer = nil
	}
	got, ferr := finishCase(ctx, d.s, err)
	if closer != nil {
		closer()
	}
	if err == nil {
		err = ferr
	}
	want := int64(cs.Size) * int64(cs.Warm+cs.Count)
	if err == nil && got != want {
		err = fmt.Errorf("rank 1 received %d bytes, want %d", got, want)
	}
	r := railRow{Bench: cs.Bench, Impl: cs.Impl, Size: cs.Size, Unit: "Mbit/s", Compete: cs.Compete > 0, Aggregated: cs.Aggregated, Bytes: got, Note: note}
	if cs.Bench == "latency" {
		r.Unit = "us"
	}
	switch {
	case err != nil:
		r.Note = "failed: " + err.Error()
	case cs.Aggregated:
		r.Value = float64(t.Nanoseconds()) / 1e3 / float64(cs.Count)
	case cs.Bench == "latency":
		r.Value = float64(t.Nanoseconds()) / 1e3 / float64(2*cs.Count)
	default:
		r.Value = float64(cs.Size) * float64(cs.Count) / t.Seconds() * 8 / 1e6
	}
	return r, nil
}

// median of xs (not empty); xs is sorted.
func median(xs []float64) float64 {
	sort.Float64s(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

func (d *railDriver) emit(r railRow) {
	r.Rails = len(d.s.rails)
	emitRow(d.c, r)
}

// splits maps the Link impls to their ways to split.
var splits = map[string]multirail.Split{
	"single": multirail.SplitSingle, "iso": multirail.SplitIso,
	"weighted": multirail.SplitWeighted, "plexus": multirail.SplitPlexus,
}

// window is how many messages of size a bandwidth case keeps in flight:
// about 4 MiB, 2 to 64 messages (bench/peers/railbw.c does the same).
func window(size int) int {
	return min(64, max(2, (4<<20)/size))
}

// caseLimit is how long one case may take before it fails: a minute, a
// millisecond a message (round trips included) and its bytes at 10
// Mbit/s, far more than any rail of the benchmark needs, so that only a
// transfer that stalls meets it.
func caseLimit(cs railCase) time.Duration {
	n := int64(cs.Warm + cs.Count)
	bits := float64(n) * float64(cs.Size) * 8
	return time.Minute + time.Duration(n)*time.Millisecond + time.Duration(bits/10e6*float64(time.Second))
}
