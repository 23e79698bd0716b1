package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/collective"
	"github.com/plexus-hpc/plexus/kv"
	"github.com/plexus-hpc/plexus/kv/kvcheck"
	"github.com/plexus-hpc/plexus/topo"
)

// kvModel returns the model of the ranks for the replicas' trees; every
// rank of the job must call it (comm/collective.New is collective).
func kvModel(ctx context.Context, w *comm.World, source string) (*topo.Model, error) {
	ms := collective.Placement
	switch source {
	case "placement":
	case "measure":
		ms = collective.Measure
	default:
		return nil, usagef("--model %q, want placement or measure", source)
	}
	cc, err := collective.New(ctx, w, collective.Config{Model: ms})
	if err != nil {
		return nil, err
	}
	defer cc.Close()
	return cc.Model(), nil
}

// parseRankTimes parses --crash or --restart RANK@DURATION[,...] into
// when each rank named crashes or restarts.
func parseRankTimes(flagName, s string) (map[int]time.Duration, error) {
	crashes := map[int]time.Duration{}
	if s == "" {
		return crashes, nil
	}
	for _, one := range strings.Split(s, ",") {
		r, d, ok := strings.Cut(one, "@")
		rank, err1 := strconv.Atoi(r)
		after, err2 := time.ParseDuration(d)
		if !ok || err1 != nil || err2 != nil || rank < 0 || after < 0 {
			return nil, fmt.Errorf("--%s %q, want RANK@DURATION[,...] such as 1@500ms", flagName, s)
		}
		crashes[rank] = after
	}
	return crashes, nil
}

// crashAfter makes this process vanish after d, as a crash would: no
// deferred function runs and nothing is closed.
func crashAfter(c *cli, rank int, d time.Duration) {
	time.AfterFunc(d, func() {
		fmt.Fprintf(c.stderr, "kv serve: replica %d crashes now\n", rank)
		os.Exit(0)
	})
}

// kvLoad runs a load rank: the load, its line, the check, the stop.
func kvLoad(ctx context.Context, c *cli, w *comm.World, o *kvServeOpts) error {
	cfg := o.load
	cfg.Client = kv.ClientConfig{Replicas: o.replicas}
	cfg.Seed = uint64(w.Rank())
	var h kvcheck.History
	if o.check {
		cfg.History = &h
	}
	res, err := kv.RunLoad(ctx, w, cfg)
	if err != nil {
		return err
	}
	line := kvLoadLine{Rank: w.Rank(), Ops: res.Ops, Failed: res.Failed, Checked: o.check,
		OpsPerS: float64(res.Ops) / res.Elapsed.Seconds(),
		P50us:   us(res.Quantile(0.5)), P99us: us(res.Quantile(0.99))}
	if res.FirstErr != nil {
		line.FirstErr = res.FirstErr.Error()
	}
	b, _ := json.Marshal(line)
	fmt.Fprintln(c.stdout, string(b))
	stopper, err := kv.NewClient(w, kv.ClientConfig{Replicas: o.replicas, Index: 1<<16 - 1})
	if err != nil {
		return err
	}
	_ = stopper.Stop(ctx) // a replica that is gone needs no stop
	if o.check {
		if err := h.Check(); err != nil {
			return err
		}
	}
	if res.Failed > 0 {
		return fmt.Errorf("%d of %d requests failed: %w", res.Failed, res.Failed+res.Ops, res.FirstErr)
	}
	return nil
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
