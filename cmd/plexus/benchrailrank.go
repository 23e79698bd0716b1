package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"

	"github.com/plexus-hpc/plexus/rail"
	"github.com/plexus-hpc/plexus/transport/multirail"
)

// The ranks of plexus bench rail: rank 0 drives, case by case, and rank 1
// serves. For each case rank 0 sends a railCase (tagRailCase); both open
// what the case needs (fresh rail connections, an MPTCP connection, the
// competing flow's connection, accepted by rank 1 in the order rank 0
// dials them), rank 0 times its part, then says so (tagRailEnd), and rank
// 1 closes its end and answers with the bytes it received (tagRailDone).
// Waiting for the end before closing keeps rank 1 from closing a Link
// whose last acknowledgements are still queued.
const (
	tagRailCase = 9200 + iota
	tagRailEnd
	tagRailDone
	tagRailAddr
	tagRailKernel
)

// railCase is one case, as rank 0 tells rank 1; a Bench of "" ends the
// job.
type railCase struct {
	Bench   string `json:"bench"` // bandwidth, latency, sample
	Impl    string `json:"impl"`
	Size    int    `json:"size"`
	Warm    int    `json:"warm"`  // messages or round trips before the timed ones
	Count   int    `json:"count"` // timed messages or round trips
	Compete int    `json:"compete"`
	// Aggregated: a latency case of messages sent window at a time, not
	// one round trip each: small messages that queue together on a rail
	// leave together.
	Aggregated bool           `json:"aggregated,omitempty"`
	Fast       int            `json:"fast"`            // the fastest rail, where the competing flow runs
	Slice      int            `json:"slice,omitempty"` // the Links' Config.Slice (--slice)
	Profiles   []rail.Profile `json:"profiles,omitempty"`
}

// pingPong says whether the case is round trips, one message at a time;
// the others stream.
func (cs railCase) pingPong() bool { return cs.Bench == "latency" && !cs.Aggregated }

// railCaseDone is rank 1's answer at the end of a case.
type railCaseDone struct {
	Bytes int64  `json:"bytes"`
	Err   string `json:"err,omitempty"`
}

// benchRailRank is one rank of plexus bench rail.
func benchRailRank(ctx context.Context, c *cli, o *benchRailOpts, impls []string, only []*net.IPNet) error {
	w, s, done, err := joinRails(ctx, only)
	if err != nil {
		return err
	}
	defer done()
	switch w.Rank() {
	case 0:
		return driveRails(ctx, c, o, impls, s)
	case 1:
		if err := railSend(ctx, w, 0, tagRailKernel, bootID()); err != nil {
			return err
		}
		return serveRails(ctx, s)
	}
	return nil
}

// railSizes are the sizes of the bandwidth and latency cases, and the
// bytes of each bandwidth case.
type railSizes struct {
	bw, lat   []int
	bytes     int
	latIters  int
	sampleMax int
}

func newRailSizes(quick bool) railSizes {
	if quick {
		return railSizes{bw: []int{64 << 10, 1 << 20, 8 << 20}, lat: []int{4, 4096}, bytes: 16 << 20, latIters: 100, sampleMax: 8 << 20}
	}
	z := railSizes{lat: []int{4, 16, 64, 256, 1024, 4096}, bytes: 128 << 20, latIters: 5000, sampleMax: 8 << 20}
	for n := 64 << 10; n <= 64<<20; n *= 2 {
		z.bw = append(z.bw, n)
	}
	return z
}

// emitRow prints a row for the command to collect.
func emitRow(c *cli, r railRow) {
	b, _ := json.Marshal(r)
	fmt.Fprintf(c.stdout, "%s%s\n", railRowMark, b)
}

// serveRails is rank 1: each case until rank 0 says the job is done.
func serveRails(ctx context.Context, s *railSession) error {
	for {
		var cs railCase
		if err := railRecv(ctx, s.w, 0, tagRailCase, &cs); err != nil {
			return err
		}
		if cs.Bench == "" {
			return nil
		}
		var done railCaseDone
		closer, err := serveCase(ctx, s, cs, &done.Bytes)
		if err != nil {
			done.Err = err.Error()
			if closer != nil { // rank 0 may wait for acknowledgements
				closer()
				closer = nil
			}
		}
		var end string
		if err := railRecv(ctx, s.w, 0, tagRailEnd, &end); err != nil {
			return err
		}
		if closer != nil {
			closer()
		}
		if err := railSend(ctx, s.w, 0, tagRailDone, done); err != nil {
			return err
		}
	}
}

// serveCase is rank 1's side of one case; it counts the payload bytes it
// receives into *got and returns what closes the case's connections.
func serveCase(ctx context.Context, s *railSession, cs railCase, got *int64) (func(), error) {
	switch cs.Impl {
	case "sample":
		return serveSample(ctx, s)
	case "mptcp":
		return serveMPTCP(ctx, s, cs, got)
	case "tcp", "tcppoll":
		return serveTCP(ctx, s, cs, got)
	case "openmpi":
		comps, err := acceptCompetitors(ctx, s, cs)
		return func() { closeAll(comps) }, err
	}
	return serveLink(ctx, s, cs, got)
}

// serveSample answers rank 0's sampling of every rail.
func serveSample(ctx context.Context, s *railSession) (func(), error) {
	conns, err := s.connect(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range conns {
		if err := multirail.Echo(c); err != nil {
			closeAll(conns)
			return nil, err
		}
	}
	return func() { closeAll(conns) }, nil
}

func closeAll(conns []net.Conn) {
	for _, c := range conns {
		if c != nil {
			c.Close()
		}
	}
}

// sampleRails is rank 0's sampling of every rail, as plexus rail sample
// does but with powers of four (and the largest size): enough points for
// the interpolation, in a fraction of the time.
func sampleRails(ctx context.Context, s *railSession, maxSize int) ([]rail.Profile, error) {
	if err := railSend(ctx, s.w, 1, tagRailCase, railCase{Bench: "sample", Impl: "sample"}); err != nil {
		return nil, err
	}
	conns, err := s.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer closeAll(conns)
	var sizes []int
	for n := 4; n < maxSize; n *= 4 {
		sizes = append(sizes, n)
	}
	sizes = append(sizes, maxSize)
	var ps []rail.Profile
	for k, c := range conns {
		samples, err := multirail.Sample(ctx, c, multirail.SampleConfig{Sizes: sizes, Reps: 5})
		if err != nil {
			return nil, err
		}
		p, err := rail.NewProfile(s.rails[k].Local+">"+s.rails[k].Remote, samples)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	if _, err := finishCase(ctx, s, nil); err != nil {
		return nil, err
	}
	return ps, nil
}

// finishCase tells rank 1 that rank 0's part of the case is over and
// returns rank 1's count of the bytes it received; rank 1's error, if
// any, comes back as the error.
func finishCase(ctx context.Context, s *railSession, caseErr error) (int64, error) {
	end := ""
	if caseErr != nil {
		end = caseErr.Error()
	}
	if err := railSend(ctx, s.w, 1, tagRailEnd, end); err != nil {
		return 0, err
	}
	var done railCaseDone
	if err := railRecv(ctx, s.w, 1, tagRailDone, &done); err != nil {
		return 0, err
	}
	if done.Err != "" {
		return done.Bytes, fmt.Errorf("rank 1: %s", done.Err)
	}
	return done.Bytes, nil
}

// fastest is the rail with the highest sampled bandwidth at 8 MiB.
func fastest(ps []rail.Profile) int {
	best := 0
	for k, p := range ps {
		if p.Bandwidth(8<<20) > ps[best].Bandwidth(8<<20) {
			best = k
		}
	}
	return best
}

// idealRate is the sum of the rails' sampled bandwidths at size, bytes
// per second.
func idealRate(ps []rail.Profile, size int) float64 {
	sum := 0.0
	for _, p := range ps {
		sum += p.Bandwidth(size)
	}
	return sum
}
