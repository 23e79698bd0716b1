package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// The tcp impl: one plain TCP connection on the fastest rail, read and
// written with Go's blocking calls, so that each message that arrives
// wakes its reader through the runtime's netpoller. It is no rival to
// the rails (it is --impls only, not run by default); it says, in the
// same run, what a Go program gets from one link without the Links'
// polling, the floor the small-message path is judged against.

// tcpCase is rank 0's side of a tcp case.
func (d *railDriver) tcpCase(ctx context.Context, cs railCase) (time.Duration, func(), error) {
	c, err := d.s.dial(ctx, d.s.rails[cs.Fast])
	if err != nil {
		return 0, nil, err
	}
	comps, err := dialCompetitors(ctx, d.s, cs)
	if err != nil {
		c.Close()
		return 0, nil, err
	}
	closer := func() { c.Close(); closeAll(comps) }
	t, err := timeStream(c, cs, comps)
	return t, closer, err
}

// serveTCP is rank 1's side of a tcp case.
func serveTCP(ctx context.Context, s *railSession, cs railCase, got *int64) (func(), error) {
	c, err := s.accept(ctx, s.lns[cs.Fast])
	if err != nil {
		return nil, err
	}
	comps, err := acceptCompetitors(ctx, s, cs)
	closer := func() { c.Close(); closeAll(comps) }
	if err != nil {
		return closer, err
	}
	return closer, recvStream(c, cs, got)
}

// railCases are the benches --cases may name.
var railCases = []string{"bandwidth", "latency"}

// parseCases checks --cases: a comma-separated subset of railCases.
func parseCases(s string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !contains(railCases, f) {
			return nil, fmt.Errorf("--cases: unknown case %q, want some of %s", f, strings.Join(railCases, ","))
		}
		out[f] = true
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--cases %q: no case", s)
	}
	return out, nil
}

// railSizes are the sizes of the run, for --quick, with only the benches
// of --cases and --iters round trips per latency case where set.
func (o *benchRailOpts) railSizes() railSizes {
	z := newRailSizes(o.quick)
	cases, err := parseCases(o.cases)
	if err != nil { // checked by runBenchRail
		return z
	}
	if !cases["bandwidth"] {
		z.bw = nil
	}
	if !cases["latency"] {
		z.lat = nil
	}
	if o.iters > 0 {
		z.latIters = o.iters
	}
	return z
}
