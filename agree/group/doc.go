// Package group runs a 1Paxos group (package agree) on real links: a
// Replica owns one agree.Node and a goroutine that steps it, ticks it,
// sends what it returns and applies its decisions; a Net carries its
// frames. Two Nets are here:
//
//   - Team: replicas in one process, one per CPU and pinned when asked
//     (Smelt §5.6), linked by rings that each replica's goroutine polls:
//     the acceptor's accepts go down a machine-aware tree rooted at it
//     (Mode Tree) or from it to each replica in turn (Mode Sequential,
//     the paper's baseline).
//   - Ranks: replicas as the ranks 0..R-1 of a comm.World: the tree
//     broadcast is relayed by the ranks along a tree.Adaptive tree of the
//     ranks' model rooted at the acceptor, skipping ranks that are gone;
//     Sequential sends from the acceptor to each rank in turn.
//
// Usage over ranks, at every replica rank:
//
//	net, err := group.NewRanks(w, group.RanksConfig{Replicas: 3, Mode: group.Tree})
//	if err != nil { ... }
//	r, err := group.New(group.Config{Agree: agree.Config{ID: w.Rank(), Replicas: 3},
//		Apply: func(e agree.Entry) { ... }}, net)
//	if err != nil { ... }
//	go net.Serve(ctx, r.Deliver)
//	go r.Run(ctx)
//	err = r.Propose(ctx, []byte("value")) // decided at every replica, through Apply
//
// With Config.CompactEvery, Snapshot and Restore the replica compacts
// its log every so many slots and restores the snapshots it is sent;
// Replica.Restart makes it lose its state and recover from the others
// while it keeps its place on the Net (a replica restarts inside its
// process: a comm.World's membership is fixed when it is joined, so a
// new process cannot take a lost rank's place).
//
// On a Team, Run also polls the replica's links and relays the team's
// broadcasts (Team.Net; there is no Serve):
//
//	team, err := group.NewTeam(group.TeamConfig{Replicas: 3, Mode: group.Tree, Pin: true})
//	rs[i], err = group.New(group.Config{Agree: agree.Config{ID: i, Replicas: 3}}, team.Net(i))
//	team.Attach(rs)
//	go rs[i].Run(ctx) // for each i
//
// Messages to several replicas are batched: one frame per destination
// per step, and the accepts of a burst go in one broadcast, up to
// Config.BroadcastBatch (1 broadcasts each accept, as Smelt's 1Paxos).
// Replica.Load tells how busy a team replica's goroutine is, and with
// TeamConfig.Profile, Replica.Profile on which part of its loop. A send that
// fails reports the peer to the protocol, which replaces a lost leader or
// acceptor at once instead of after its timeout. Everything the protocol
// guarantees (agree's doc) holds here: lost or duplicated frames only
// cost time.
package group
