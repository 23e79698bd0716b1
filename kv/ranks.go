package kv

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/plexus-hpc/plexus/agree"
	"github.com/plexus-hpc/plexus/agree/group"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/topo"
)

// Tags of the store's traffic between ranks.
const (
	tagRequest   = 0x7b00
	tagReplyBase = 1 << 20 // + the client's Index
	// MaxMessage bounds a request or response: key and value together
	// must leave room for the headers.
	MaxMessage = 64 << 10
	// MaxKeyValue is the most bytes a key and its value may hold together.
	MaxKeyValue = MaxMessage - 64
)

// RanksConfig describes a store whose replicas are ranks 0..Replicas-1
// of a comm.World; every other rank may run Clients.
type RanksConfig struct {
	Replicas int
	Mode     group.Mode // how the acceptor broadcasts; zero means group.Tree
	Model    *topo.Model
	Tick     time.Duration // the protocol's clock; zero means group's default
	Seed     uint64
	// Log, when not nil, gets the replica's final state when it stops
	// (epoch, leader, acceptor, slots applied).
	Log *slog.Logger
	// CompactEvery is how many applied slots a replica lets pass between
	// snapshots of its store, after each of which it forgets the log
	// before it (default DefaultCompactEvery); negative turns compaction
	// off, and the replicas' memory then grows with every Set.
	CompactEvery int
	// Restart, when not nil, restarts this rank's replica with its state
	// lost every time a value arrives (Server.Restart): the rank stays
	// in its World and the replica recovers from the others. It is how
	// tests and plexus kv serve --restart exercise recovery.
	Restart <-chan struct{}
}

// MatchShards is the comm.Config.MatchShards a store's world does best
// with: a replica takes its requests and the group's frames with
// AnySource receives, each of which looks at every part of the world's
// matching, and its clients wait on exact tags, a few goroutines each
// (docs/benchmarks.md, "Wildcard receives against the match table's
// shards" and "Wildcard receives without locking every shard"). Join
// with it: comm.JoinWith(ctx, comm.Config{MatchShards: kv.MatchShards}).
const MatchShards = 16

// DefaultCompactEvery is RanksConfig.CompactEvery's default: a snapshot
// every so many slots keeps a replica's log short at the cost of one
// copy of the store per interval.
const DefaultCompactEvery = 1024

func (c RanksConfig) compactEvery() uint64 {
	switch {
	case c.CompactEvery < 0:
		return 0
	case c.CompactEvery == 0:
		return DefaultCompactEvery
	}
	return uint64(c.CompactEvery)
}

// ServeRanks runs this rank's replica until ctx ends or every client
// rank (the ranks from Replicas on) has sent OpStop; then it returns nil.
func ServeRanks(ctx context.Context, w *comm.World, cfg RanksConfig) error {
	net, err := group.NewRanks(w, group.RanksConfig{Replicas: cfg.Replicas, Mode: cfg.Mode, Model: cfg.Model})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	s, err := NewServer(group.Config{Agree: agree.Config{ID: w.Rank(), Replicas: cfg.Replicas, Seed: cfg.Seed},
		Tick: cfg.Tick, CompactEvery: cfg.compactEvery(), Log: cfg.Log}, net)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { _ = net.Serve(ctx, s.Replica().Deliver) }()
	if cfg.Restart != nil {
		go restartOn(ctx, s, cfg.Restart)
	}
	done := make(chan struct{})
	go func() { _ = s.Run(ctx); close(done) }()
	err = serveRequests(ctx, w, s, w.Size()-cfg.Replicas)
	if cfg.Log != nil {
		logStatus(cfg.Log, s)
	}
	cancel()
	<-done
	return err
}

// restartOn restarts s every time restart delivers, until ctx ends.
func restartOn(ctx context.Context, s *Server, restart <-chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-restart:
			if s.Restart(ctx) != nil {
				return
			}
		}
	}
}

// logStatus logs the replica's state, asked of its goroutine.
func logStatus(log *slog.Logger, s *Server) {
	got := make(chan agree.Status, 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if s.Replica().Call(ctx, func(n *agree.Node) { got <- n.Status() }) != nil {
		return
	}
	select {
	case st := <-got:
		log.Info("kv: replica stops", "replica", st.ID, "epoch", st.Epoch, "leader", st.Leader,
			"acceptor", st.Acceptor, "applied", st.Applied, "compacted", st.Compacted, "held", st.Held)
	case <-ctx.Done():
	}
}

// serveRequests receives clients' requests and hands them to s until
// ctx ends or clients OpStops have come.
func serveRequests(ctx context.Context, w *comm.World, s *Server, clients int) error {
	buf := make([]byte, MaxMessage)
	stops := 0
	for clients == 0 || stops < clients {
		st, err := w.Recv(ctx, comm.AnySource, tagRequest, buf)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue // a client was lost, or a request too long
		}
		var req Request
		if req.UnmarshalBinary(buf[:st.Len]) != nil {
			continue
		}
		if req.Op == OpStop {
			stops++
			continue
		}
		src := st.Source
		reply := func(r Response) {
			b, _ := r.AppendBinary(nil)
			_ = w.Send(ctx, src, req.ReplyTag, b)
		}
		if err := s.Handle(ctx, req, reply); err != nil {
			return err
		}
	}
	return nil
}
