// Package agree is 1Paxos (David, Guerraoui and Yabandeh, Middleware
// 2014), the agreement protocol Smelt runs on its broadcast trees
// (Smelt §5.6), as a deterministic state machine in the manner of etcd's
// raft: messages in, messages and decisions out, no goroutines, no I/O,
// and time counted in ticks.
//
// A group has Replicas replicas. In each epoch one of them leads and
// another is the single active acceptor. A value proposed at any replica
// goes to the leader, which gives it a slot and sends it to the
// acceptor; the acceptor accepts it and announces the accept to every
// replica with one broadcast — the message a driver sends over a
// machine-aware tree — and that accept decides the slot. When the leader
// or the acceptor fails, the replicas choose the next epoch's leader,
// acceptor and log by classic Paxos among themselves, built from what the
// surviving one of the two had proposed or accepted. The protocol and its
// safety argument are in docs/design/agree.md.
//
// A driver owns one Node per replica and runs a loop:
//
//	n, err := agree.New(agree.Config{ID: id, Replicas: 3})
//	if err != nil { ... }
//	for {
//		select {
//		case <-ticker.C:
//			n.Tick()
//		case m := <-inbox: // a message from another replica
//			_ = n.Step(m) // an error is a message no replica could have sent
//		case v := <-requests:
//			_ = n.Propose(v)
//		}
//		rd := n.Ready()
//		for _, m := range rd.Messages {
//			send(m) // m.To == agree.All: broadcast to every other replica
//		}
//		if rd.Snapshot != nil {
//			restore(*rd.Snapshot) // state of slots 1..Index, from another replica
//		}
//		for _, e := range rd.Decided {
//			apply(e) // in slot order; a nil Value is a no-op
//		}
//		if applied >= lastSnapshot+interval { // log compaction, when the caller wants it
//			_ = n.Compact(applied, snapshot())
//		}
//	}
//
// Guarantees: every replica hands out the same sequence of decided
// entries, slot by slot, and a decided entry never changes, whatever the
// order, loss or duplication of messages and the crashes of replicas.
// Progress needs a majority of the replicas up and, of each epoch's
// leader and acceptor, at least one alive until the next epoch is chosen
// (with both gone, what the acceptor accepted is unknown, and the group
// stops rather than guess). A proposed value is sent again until it is
// decided, so it may be decided twice: applications make values unique
// and skip repeats. Message.AppendBinary and UnmarshalBinary give a wire
// form.
//
// Compaction: Compact hands the replica a snapshot of the application's
// state at an applied slot; the replica keeps it and forgets the
// entries before it, so its memory stays bounded however many slots are
// decided. A replica that needs forgotten entries (it missed them, or it
// restarted) gets the snapshot and the entries after it, through
// Ready.Snapshot.
//
// Restart: a replica that lost its state is started again with
// Config.Restarted. It asks the others what it missed, catches up, and
// takes no leader or acceptor role and no vote in any epoch it may have
// acted in before (those it cannot remember); Status.Recovering says
// when it has caught up. Nothing is kept on disk: a group survives any
// number of such restarts, one replica at a time, as long as enough of
// the others are up (Replicas - Replicas/2 of them) while one recovers.
package agree
