package kv

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/kv/kvcheck"
)

// LoadConfig describes a closed-loop load from one client rank: Clients
// goroutines, each with its own Client, each issuing requests back to
// back, GetPercent of them Gets, over Keys keys of KeySize bytes with
// values of ValueSize bytes (the paper's case: 80, 8 and 16).
type LoadConfig struct {
	Client     ClientConfig // Index and Prefer are set per client
	Clients    int
	Duration   time.Duration // how long to run; or
	Ops        int           // requests per client, when Duration is 0
	GetPercent int
	Keys       int
	KeySize    int
	ValueSize  int
	Seed       uint64
	// History, when not nil, records every operation.
	History *kvcheck.History
}

// LoadResult is what a load measured: the requests answered, those that
// failed, and every answered request's response time.
type LoadResult struct {
	Ops, Failed int
	Elapsed     time.Duration
	Latencies   []time.Duration // sorted
	FirstErr    error
}

// Quantile returns the q-quantile of the response times (0 if none).
func (r LoadResult) Quantile(q float64) time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	return r.Latencies[min(len(r.Latencies)-1, int(q*float64(len(r.Latencies))))]
}

// RunLoad runs the load from this rank and returns what it measured.
func RunLoad(ctx context.Context, w *comm.World, cfg LoadConfig) (LoadResult, error) {
	if err := cfg.Validate(); err != nil {
		return LoadResult{}, err
	}
	if cfg.Client.Replicas < 1 {
		return LoadResult{}, fmt.Errorf("%w: load on %d replicas", ErrConfig, cfg.Client.Replicas)
	}
	var mu sync.Mutex
	var all LoadResult
	var wg sync.WaitGroup
	start := time.Now()
	for i := range cfg.Clients {
		cc := cfg.Client
		cc.Index, cc.Prefer = i, (w.Rank()+i)%cc.Replicas
		c, err := NewClient(w, cc)
		if err != nil {
			return LoadResult{}, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := runClient(ctx, c, cfg, i)
			mu.Lock()
			defer mu.Unlock()
			all.Ops, all.Failed = all.Ops+r.Ops, all.Failed+r.Failed
			all.Latencies = append(all.Latencies, r.Latencies...)
			all.FirstErr = cmpErr(all.FirstErr, r.FirstErr)
		}()
	}
	wg.Wait()
	all.Elapsed = time.Since(start)
	slices.Sort(all.Latencies)
	return all, ctx.Err()
}

// Validate says what is wrong with the load's configuration, if anything.
func (cfg LoadConfig) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, a...))
	}
	switch {
	case cfg.Clients < 1:
		return bad("load of %d clients, want at least 1", cfg.Clients)
	case cfg.Duration < 0:
		return bad("load duration %v, want 0 (count requests) or more", cfg.Duration)
	case cfg.Duration == 0 && cfg.Ops < 0:
		return bad("%d requests per client, want 0 or more", cfg.Ops)
	case cfg.GetPercent < 0 || cfg.GetPercent > 100:
		return bad("%d%% Gets, want 0 to 100", cfg.GetPercent)
	case cfg.Keys < 1:
		return bad("%d keys, want at least 1", cfg.Keys)
	case cfg.KeySize < 8:
		return bad("keys of %d bytes, want at least 8", cfg.KeySize)
	case cfg.ValueSize < 16:
		return bad("values of %d bytes, want at least 16", cfg.ValueSize)
	case cfg.KeySize+cfg.ValueSize > MaxKeyValue:
		return bad("keys of %d bytes and values of %d, want at most %d bytes together", cfg.KeySize, cfg.ValueSize, MaxKeyValue)
	}
	return nil
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// runClient issues one client's requests until its count or the
// duration is reached, or ctx ends.
func runClient(ctx context.Context, c *Client, cfg LoadConfig, i int) LoadResult {
	rnd := rand.New(rand.NewPCG(cfg.Seed, c.id))
	var res LoadResult
	end := time.Now().Add(cfg.Duration)
	for n := 0; ctx.Err() == nil; n++ {
		if (cfg.Duration > 0 && time.Now().After(end)) || (cfg.Duration == 0 && n >= cfg.Ops) {
			break
		}
		key := fmt.Appendf(nil, "%0*d", cfg.KeySize, rnd.IntN(cfg.Keys))
		op := kvcheck.Op{Client: int(c.id), Kind: kvcheck.Get, Key: key}
		if rnd.IntN(100) >= cfg.GetPercent {
			op.Kind = kvcheck.Set
			op.Value = fmt.Appendf(nil, "%0*x", cfg.ValueSize, c.id<<32|(c.seq+1))
		}
		t0 := time.Now()
		if cfg.History != nil {
			op.Call = cfg.History.Now()
		}
		var err error
		if op.Kind == kvcheck.Get {
			op.Out, err = c.Get(ctx, key)
		} else {
			op.Out, err = c.Set(ctx, key, op.Value)
		}
		d := time.Since(t0)
		if cfg.History != nil {
			op.Return, op.Slot, op.Failed = cfg.History.Now(), c.Slot(), err != nil
			cfg.History.Add(op)
		}
		if err != nil {
			res.Failed++
			res.FirstErr = cmpErr(res.FirstErr, err)
			if errors.Is(err, context.Canceled) {
				break
			}
			continue
		}
		res.Ops++
		res.Latencies = append(res.Latencies, d)
	}
	return res
}
