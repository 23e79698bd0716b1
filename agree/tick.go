package agree

// detector is the failure detector: when the replica last heard from
// the leader and the acceptor of its epoch, and how long it waits.
type detector struct {
	leader, acceptor int64
	timeout          int64 // drawn per epoch and per attempt: electionTimeout
	beat             int64 // when this replica last sent a heartbeat
	fetch            int64 // when it last asked for missing entries
	// level counts the choices of a view this replica began since it
	// last learned a value decided in its epoch: see electionTimeout.
	level int
}

func (d *detector) heard(n *Node, from int) {
	if from == n.view.Leader {
		d.leader = n.now
	}
	if from == n.view.Acceptor {
		d.acceptor = n.now
	}
}

func (d *detector) reset(n *Node) {
	d.leader, d.acceptor = n.now, n.now
	d.timeout = n.electionTimeout(d.level)
}

// maxBackoff bounds the doubling of the election timeout: it grows to
// at most 2^maxBackoff times ElectionTicks.
const maxBackoff = 4

// electionTimeout draws a timeout in [E, 2E), with E the ElectionTicks
// doubled level times, at most maxBackoff times. It is how long a
// replica waits for the leader and the acceptor (drawn when an epoch
// begins) and for a choice of the next view it began (drawn when it
// begins it), level being the choices it began since it last learned a
// value decided in its epoch.
//
// The doubling is what lets a view be chosen when messages are slow
// next to the clock (a loaded machine, where a replica waits long for a
// CPU while its ticker runs on). A choice takes two round trips, and an
// attempt that gives up sooner is begun again with a higher ballot, so
// with a fixed timeout no attempt ever finishes; and in an epoch just
// begun, a leader whose first heartbeat takes longer than the timeout
// is replaced before it could decide anything, so the group changes
// view forever. Doubled, the timeouts soon outlast the round trips, two
// proposers that interrupt each other do so ever more rarely, and the
// first heartbeats of a new leader arrive in time. Once the new epoch
// decides a value the level falls back to 0, so the timeouts drawn after
// that are the usual ones; the first failover on an idle machine is as
// fast as without the doubling, one right after it waits up to twice as
// long to suspect the new leader or acceptor.
func (n *Node) electionTimeout(level int) int64 {
	e := int64(n.cfg.ElectionTicks) << min(level, maxBackoff)
	return e + n.rand.Int64N(e)
}

// Report tells the replica that peer is unreachable (the driver saw its
// connection fail): if it is the leader or the acceptor, the replica
// proposes a new configuration at its next tick rather than after a
// timeout. A wrong report costs a reconfiguration, never safety.
func (n *Node) Report(peer int) {
	if peer == n.view.Leader && peer != n.cfg.ID {
		n.fd.leader = n.now - n.fd.timeout - 1
	}
	if peer == n.view.Acceptor && peer != n.cfg.ID {
		n.fd.acceptor = n.now - n.fd.timeout - 1
	}
}

// Tick advances the replica's clock by one tick: heartbeats, resends
// and timeouts happen here.
func (n *Node) Tick() {
	n.now++
	n.heartbeat()
	n.recoverTick()
	n.resend()
	n.catchUp()
	n.suspect()
	n.flushLocal()
}

func (n *Node) heartbeat() {
	if !n.isLeader() && !n.isAcceptor() {
		return
	}
	if n.now-n.fd.beat < int64(n.cfg.HeartbeatTicks) {
		return
	}
	n.fd.beat = n.now
	top := n.acc.max
	if n.isLeader() {
		top = max(top, n.lead.next-1)
	}
	n.send(Message{Type: Heartbeat, To: All, Slot: top})
}

// resend sends again what has waited RetryTicks for an answer: the
// leader's undecided proposals and this replica's own undecided values.
func (n *Node) resend() {
	retry := int64(n.cfg.RetryTicks)
	if n.isLeader() {
		n.lead.proposed.each(func(s uint64, p *proposal) {
			if n.now-p.sent >= retry {
				p.sent = n.now
				n.send(Message{Type: Propose, To: n.view.Acceptor, Slot: s, Value: p.value})
			}
		})
	}
	n.own.each(func(v []byte, sent *int64) {
		if n.now-*sent >= retry {
			*sent = n.now
			n.send(Message{Type: Forward, To: n.view.Leader, Value: v})
		}
	})
}

// catchUp asks for missing entries when slots beyond the applied prefix
// are known to exist, from the acceptor (or, at the acceptor, the leader).
func (n *Node) catchUp() {
	if n.hint <= n.applied || n.now-n.fd.fetch < int64(n.cfg.RetryTicks) {
		return
	}
	n.fd.fetch = n.now
	to := n.view.Acceptor
	if to == n.cfg.ID {
		to = n.view.Leader
	}
	if to == n.cfg.ID {
		return
	}
	n.send(Message{Type: Fetch, To: to, Slot: n.applied + 1})
}

// suspect starts a reconfiguration when the leader or the acceptor has
// been silent too long, or restarts one that has not finished in time.
func (n *Node) suspect() {
	if n.view.Epoch+1 <= n.mute {
		return // restarted: the others choose the next view without it
	}
	if n.px.running {
		if n.now-n.px.started >= n.fd.timeout {
			n.startReconfig()
		}
		return
	}
	if n.leaderSuspected() || n.acceptorSuspected() {
		n.startReconfig()
	}
}

func (n *Node) leaderSuspected() bool {
	return n.view.Leader != n.cfg.ID && n.now-n.fd.leader > n.fd.timeout
}

func (n *Node) acceptorSuspected() bool {
	return n.view.Acceptor != n.cfg.ID && n.now-n.fd.acceptor > n.fd.timeout
}
