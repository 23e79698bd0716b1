// Package task is Grappa's tasks over package am: a bounded pool of
// worker goroutines on every rank, tasks spawned onto it, parallel loops
// split recursively, work stealing between ranks, and global completion
// events that tell when every task spawned anywhere has finished.
//
// Every rank makes its pool before its am engine, registers the same
// task functions and loop bodies, then binds the two:
//
//	var reg am.Registry
//	pool, err := task.New(&reg, task.Config{})
//	visit, err := pool.Register("visit", func(ctx context.Context, t *task.T, args []byte) error {
//		... // may t.Spawn or t.SpawnOn more tasks
//	})
//	square, err := pool.RegisterLoop("square", func(ctx context.Context, t *task.T, i int64) error {
//		... // runs once for index i, on whichever rank took it
//	})
//	e, err := am.New(ctx, w, &reg, am.Config{}) // checks every rank registered the same
//	err = pool.Bind(e)
//	defer pool.Close(ctx)
//
//	err = pool.ParallelFor(ctx, 0, n, square) // collective: every rank calls it
//
//	g, err := pool.NewGroup() // collective too
//	if w.Rank() == 0 {
//		err = g.SpawnOn(1, visit, task.Ints(42))
//	}
//	err = g.Wait(ctx) // returns on every rank once every task of g finished
//
// No code crosses processes: a task names a function registered by name
// on every rank and carries bytes (Ints and Int encode int64s), at most
// Config.MaxArgs of them. A function sees its rank's memory, so ranks
// keep their own data and reach other ranks' through tasks, am or pgas.
//
// ParallelFor spreads one global range over the ranks. For loops over
// each rank's own part of the data, every rank makes a Group, queues its
// own range with Group.ParallelFor, and waits: stolen iterations then
// run on other ranks, so the body reaches the data of index i wherever
// it lives (through pgas, say). Group.ForLocal queues the range where no
// thief sees it, so every iteration runs on its own rank, next to its
// data. A loop body may spawn tasks and start loops of its own
// (T.ParallelFor); the group covers them.
//
// # Scheduling
//
// A rank runs at most Config.Workers tasks at once. SpawnOn puts a task
// in the destination's private queue, which only that rank runs; Spawn
// and the pieces of a parallel loop go to the spawning rank's public
// queue. A worker takes a private task first, else the newest public one
// (depth first, as Cilk and Grappa do). ParallelFor gives each rank a
// block of the range as one task, which splits in halves as it runs,
// queueing the upper half, until Config.Grain iterations are left.
//
// When a rank has a group under way, no queued task and an idle worker,
// it steals: it asks a random live rank for half of its public queue,
// the oldest tasks first, which in a parallel loop are the largest
// pieces. Failed steals back off. Stealing is on by default
// (Config.NoSteal turns it off); on an unbalanced loop it lets idle
// ranks take the busy ones' iterations (BenchmarkParallelFor;
// docs/benchmarks.md, "Tasks and work stealing").
//
// # Completion
//
// A Group is a global completion event. Every rank makes it (NewGroup)
// and waits on it (Wait); Wait returns on every rank once every task
// spawned into the group, by any rank's code before its Wait or by the
// group's tasks anywhere, stolen and remote ones included, has
// finished. Rank 0 detects this with Mattern's four-counter method:
// waves of messages collect every rank's count of tasks held, sent and
// received, and two consecutive waves that agree, with every rank idle
// and as many tasks received as sent, prove that none exists and none
// is in flight. docs/design/task.md gives the argument. A rank whose
// tasks of the group run out tells rank 0 at once, with its counts:
// rank 0 waits for these hints rather than probing busy ranks on a
// timer, and a hint from every rank stands for the first of the two
// waves.
//
// # Errors
//
// A task's error makes the group's Wait fail on every rank with an error
// wrapping ErrTask that names the rank and carries the error's text. A
// lost rank makes every pending Wait fail with an error wrapping
// comm.ErrPeerLost, on every rank still running: the group cannot
// finish, and its queued tasks are dropped. A rank whose Wait gives up
// (its ctx ends, its pool closes) makes the others' Waits fail with
// ErrAbandoned. Unregistered functions
// (ErrBadFunc), oversize args (ErrTooLarge), a rank outside the world
// (comm.ErrBadRank) and bad ranges (ErrBadRange) fail at the caller.
package task
