// Package coll runs collective operations — broadcast, reduction,
// allreduce and barriers — on the trees of package tree, the way Smelt's
// collective layer does (Smelt §4.2): a team of members, one per CPU,
// joined by point-to-point links along the tree edges; broadcasts start
// at the root, which serialises them (atomic broadcast), and reductions
// end there, each member folding its children's values in arrival order.
// A barrier is a zero-payload reduction followed by a zero-payload
// broadcast, made of signals where the links carry them (Signaler): a
// count per link direction on a cache line of its own, which the sender
// raises and the receiver polls, so that a barrier costs no more than
// the cache-line hand-offs it needs. A team of two exchanges instead, for
// its barrier and its allreduce: both members send at once, so each takes
// one hop where a reduction and a broadcast take two.
//
// The collectives are written once against the Link interface. A team
// made by NewTeam links its members with Smelt's UMP queue pairs of
// cache-line rings (package ring), with a signal line each way. NewMember
// makes one member of a team whose other members are reached through
// links of the caller's own, such as comm.Link between processes (package
// comm/collective does this); the optional interfaces Signaler,
// SignalWord, Belled, Progresser and ProgressSleeper let such links make
// barriers and waits cheaper.
//
//	bc, _ := tree.Build(model, tree.Spec{Topology: tree.Adaptive, Root: tree.AutoRoot})
//	team, err := coll.NewTeam(coll.Config{Broadcast: bc, Pin: true})
//	if err != nil { ... }
//	err = team.Run(ctx, func(m *coll.Member) error {
//		total := make([]int, 1)
//		err := coll.AllreduceValues(ctx, m, []int{m.CPU()}, total, func(a, b int) int { return a + b })
//		if err != nil {
//			return err
//		}
//		buf := make([]byte, 64)
//		n := 0
//		if m.IsRoot() {
//			n = copy(buf, "hello")
//		}
//		if n, err = m.Broadcast(ctx, buf, n); err != nil { // every member now has buf[:n]
//			return err
//		}
//		return m.Barrier(ctx)
//	})
//
// Every function and method that waits takes a context.Context first and
// returns ctx.Err() unchanged when it ends. Numbers are reduced with the
// generic ReduceValues and AllreduceValues; Member.Reduce and
// Member.Allreduce are their byte-level forms, for element types of the
// caller's own with an op on their encodings. The same names and argument
// order serve across processes in package comm/collective, whose rooted
// collectives take the root rank after ctx.
//
// Allreduce runs on the trees unless Config.Allreduce, a plan per vector
// length, names recursive doubling or Rabenseifner's algorithm; make the
// plan the machine model favours with tree.PlanAllreduce, or force one
// algorithm with tree.FixedAllreduce:
//
//	plan, err := tree.PlanAllreduce(model, bc, bc, 1024, tree.DefaultAllreduceCosts)
//	team, err := coll.NewTeam(coll.Config{Broadcast: bc, Allreduce: plan})
//
// Run starts one goroutine per member, pinned to the member's CPU when
// Config.Pin is set. Members may also be driven by goroutines of the
// caller's own (Team.Members, Member.Pin); a member's methods must then
// be called from one goroutine at a time, and every member must call the
// collectives in the same order. Only the root's Broadcast admits
// concurrent callers.
//
// Every wait spins, then pauses, then yields and finally sleeps until the
// member it waits for sends or signals to it. Members of a team no larger
// than GOMAXPROCS spin long and yield their thread's CPU, never their P,
// whoever pinned them (so other goroutines of the process may wait for a
// P while members spin), and on Linux sleep in a futex that the waking
// member wakes directly, holding their P as a blocking system call does;
// members of a larger team yield early; nothing on the fast path
// blocks on a channel or mutex, because a hand-off between spinning CPUs
// costs tens of nanoseconds and one through the scheduler tens of
// microseconds. Waits end with an error, never a hang: when ctx
// ends (ctx.Err() returned unchanged), when a link fails, or when another
// member of the team failed (ErrClosed wrapping the cause). The first
// error ends the team.
//
// docs/design/collectives.md describes how the collectives and their
// waits work, and how they compare with conventional barriers.
package coll
