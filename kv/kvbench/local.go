package kvbench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/plexus-hpc/plexus/agree/group"
	"github.com/plexus-hpc/plexus/kv"
)

// KVLocal runs the store in this process: Replicas kv.Servers on an
// agree/group Team and Clients goroutines, client i talking to
// replica i mod Replicas, issuing the 80/20 mix on 1000 keys of 8 bytes
// with 16-byte values. The row's bench is "kvlocal".
func KVLocal(ctx context.Context, cfg AgreeConfig) (Row, error) { return kvLocal(ctx, cfg, nil) }

// kvLocal is KVLocal; inspect, when not nil, sees the servers after the
// load and before they stop (tests).
func kvLocal(ctx context.Context, cfg AgreeConfig, inspect func([]*kv.Server)) (Row, error) {
	team, err := group.NewTeam(cfg.team())
	if err != nil {
		return Row{}, err
	}
	var servers []*kv.Server
	var rs []*group.Replica
	for id := range cfg.Replicas {
		s, err := kv.NewServer(cfg.replicaConfig(id), team.Net(id))
		if err != nil {
			return Row{}, err
		}
		servers, rs = append(servers, s), append(rs, s.Replica())
	}
	team.Attach(rs)
	ctx, cancel := context.WithCancel(ctx)
	var bg sync.WaitGroup
	defer bg.Wait()
	defer cancel()
	bg.Add(len(servers))
	for _, s := range servers {
		go func() { defer bg.Done(); _ = s.Run(ctx) }()
	}
	lat, elapsed := driveLocal(ctx, cfg, servers)
	if inspect != nil {
		inspect(servers)
	}
	if ctx.Err() != nil {
		return Row{}, ctx.Err()
	}
	return row("kvlocal", cfg.impl(), cfg.Replicas, cfg.Clients, lat, elapsed), nil
}

func driveLocal(ctx context.Context, cfg AgreeConfig, servers []*kv.Server) ([]time.Duration, time.Duration) {
	var mu sync.Mutex
	var all []time.Duration
	var wg sync.WaitGroup
	start := time.Now()
	for c := range cfg.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := localClient(ctx, servers[c%len(servers)], uint64(c)+1, start.Add(cfg.Duration))
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.Sort(all)
	return all, time.Since(start)
}

// localClient issues requests to s until end and returns their response
// times.
func localClient(ctx context.Context, s *kv.Server, id uint64, end time.Time) []time.Duration {
	rnd := rand.New(rand.NewPCG(id, 7))
	reply := make(chan kv.Response, 1)
	answer := func(r kv.Response) { reply <- r }
	var lat []time.Duration
	var minSlot uint64
	for seq := uint64(1); time.Now().Before(end); seq++ {
		req := kv.Request{Op: kv.OpGet, Client: id, Seq: seq, MinSlot: minSlot, Key: fmt.Appendf(nil, "%08d", rnd.IntN(1000))}
		if rnd.IntN(100) >= 80 {
			req.Op, req.Value = kv.OpSet, fmt.Appendf(nil, "%016x", id<<32|seq)
		}
		t0 := time.Now()
		if s.Handle(ctx, req, answer) != nil {
			return lat
		}
		select {
		case r := <-reply:
			minSlot = max(minSlot, r.Slot)
			lat = append(lat, time.Since(t0))
		case <-ctx.Done():
			return lat
		}
	}
	return lat
}
