// Package kv is a replicated in-memory key-value store on 1Paxos (Smelt
// §5.7): every replica holds the whole map; Sets are ordered by the
// agreement protocol (package agree, run by agree/group) and Gets are
// served by the replica a client talks to, from its applied state.
//
// Consistency:
//   - Set is linearizable: it takes effect at its slot in the agreed
//     order, between its call and its return, and returns the value it
//     replaced. A Set sent again to another replica after a failure is
//     applied once (requests carry a client id and sequence number).
//   - Get is sequentially consistent, not linearizable: it reads the
//     replica's applied state, which may lag behind Sets other clients
//     finished at other replicas. A client never reads older state than
//     it has seen (its requests carry the highest slot it saw, and a
//     replica that is behind waits until it has applied that far), so it
//     reads its own writes, also after failing over.
//
// Keys and values are []byte, at most MaxMessage bytes together. The
// store runs across the ranks of a job: ranks 0..R-1 are replicas
// (ServeRanks), the others run Clients:
//
//	w, err := comm.JoinWith(ctx, comm.Config{MatchShards: kv.MatchShards})
//	if err != nil { ... }
//	if w.Rank() < 3 {
//		err = kv.ServeRanks(ctx, w, kv.RanksConfig{Replicas: 3}) // until every client rank has stopped
//	} else {
//		c, _ := kv.NewClient(w, kv.ClientConfig{Replicas: 3, Prefer: w.Rank() % 3})
//		prev, err := c.Set(ctx, []byte("key"), []byte("value"))
//		v, err := c.Get(ctx, []byte("key"))
//		err = c.Stop(ctx)
//	}
//
// Replicas compact their logs: every RanksConfig.CompactEvery slots a
// replica snapshots its store and forgets the log before it, so its
// memory stays bounded under any load; a replica that fell behind is
// sent the snapshot and the log after it. A replica that loses its
// state (Server.Restart, RanksConfig.Restart) recovers it from the
// others within its rank and answers no Get until it has caught up; a
// restarted process cannot rejoin a running job (a World's ranks are
// fixed when it is joined).
//
// A client whose replica fails tries the next one; a request fails with
// ErrUnavailable only when no replica can order it — a majority lost, or
// the leader and the acceptor lost together — and the store then stops
// making progress rather than answer wrongly. `plexus kv serve` and
// `plexus bench kv` run it as a job.
package kv
