package kvbench

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/plexus-hpc/plexus/agree"
	"github.com/plexus-hpc/plexus/agree/group"
	"github.com/plexus-hpc/plexus/topo"
)

// AgreeConfig is one in-process run: Replicas members of a coll team
// (on CPUs of Model, pinned when Pin), Clients goroutines each proposing
// a value at replica i%Replicas and waiting for it to be decided there.
type AgreeConfig struct {
	Replicas, Clients int
	Mode              group.Mode
	Duration          time.Duration
	Model             *topo.Model
	CPUs              []int
	Pin               bool
}

// Agree runs one in-process measurement.
func Agree(ctx context.Context, cfg AgreeConfig) (Row, error) {
	team, err := group.NewTeam(group.TeamConfig{Replicas: cfg.Replicas, Mode: cfg.Mode, Model: cfg.Model, CPUs: cfg.CPUs, Pin: cfg.Pin})
	if err != nil {
		return Row{}, err
	}
	w := newWaiters()
	var rs []*group.Replica
	for id := range cfg.Replicas {
		r, err := group.New(group.Config{Agree: agree.Config{ID: id, Replicas: cfg.Replicas},
			Apply: func(e agree.Entry) { w.done(id, string(e.Value)) }}, team.Net(id))
		if err != nil {
			return Row{}, err
		}
		rs = append(rs, r)
	}
	team.Attach(rs)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var bg sync.WaitGroup
	defer bg.Wait()
	defer cancel()
	bg.Add(len(rs))
	for _, r := range rs {
		go func() { defer bg.Done(); _ = r.Run(ctx) }()
	}
	lat, elapsed, err := drive(ctx, cfg, rs, w)
	if err != nil {
		return Row{}, err
	}
	return row("agree", cfg.Mode, cfg.Replicas, cfg.Clients, lat, elapsed), nil
}

// drive runs the closed-loop clients for the duration and returns every
// response time, sorted.
func drive(ctx context.Context, cfg AgreeConfig, rs []*group.Replica, w *waiters) ([]time.Duration, time.Duration, error) {
	var mu sync.Mutex
	var all []time.Duration
	var wg sync.WaitGroup
	start := time.Now()
	end := start.Add(cfg.Duration)
	for c := range cfg.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := c % len(rs)
			var mine []time.Duration
			for n := 0; time.Now().Before(end) && ctx.Err() == nil; n++ {
				v := fmt.Sprintf("c%d-%d", c, n)
				ch := w.wait(id, v)
				t0 := time.Now()
				if rs[id].Propose(ctx, []byte(v)) != nil {
					return
				}
				select {
				case <-ch:
					mine = append(mine, time.Since(t0))
				case <-ctx.Done():
					return
				}
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.Sort(all)
	return all, time.Since(start), ctx.Err()
}

type waitKey struct {
	id int
	v  string
}

// waiters wakes a client when its value is applied at its replica.
type waiters struct {
	mu sync.Mutex
	m  map[waitKey]chan struct{}
}

func newWaiters() *waiters { return &waiters{m: map[waitKey]chan struct{}{}} }

func (w *waiters) wait(id int, v string) <-chan struct{} {
	ch := make(chan struct{})
	w.mu.Lock()
	w.m[waitKey{id, v}] = ch
	w.mu.Unlock()
	return ch
}

func (w *waiters) done(id int, v string) {
	k := waitKey{id, v}
	w.mu.Lock()
	ch, ok := w.m[k]
	delete(w.m, k)
	w.mu.Unlock()
	if ok {
		close(ch)
	}
}

func row(bench string, mode group.Mode, replicas, clients int, lat []time.Duration, elapsed time.Duration) Row {
	q := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Nanoseconds()) / 1e3
	}
	return Row{Bench: bench, Impl: mode.String(), Replicas: replicas, Clients: clients,
		OpsPerS: float64(len(lat)) / elapsed.Seconds(), P50us: q(0.5), P99us: q(0.99)}
}
