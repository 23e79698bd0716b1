package task

// Termination detection is Mattern's four-counter method, run by a
// group's master (rank 0). Every rank counts, per group, the tasks it
// holds (queued or running), the tasks it sent to other ranks and the
// tasks it received. A wave asks every rank for a report; two
// consecutive waves that find every rank idle with the same counters,
// and as many tasks received as sent, prove that the group has
// finished. docs/design/task.md gives the argument.

// report is one rank's answer to a wave.
type report struct {
	idle       bool   // the rank waits on the group and holds none of its tasks
	sent, recv uint64 // tasks of the group it sent to and received from other ranks
	err        string // the first error of a task of the group there, or ""
	gone       bool   // the rank's Wait ended without a decision (ctx, Close)
}

// terminated reports whether the waves prev and cur, where cur began
// after every answer of prev came back, prove that the group finished:
// every rank idle in both, no rank's counters changed between them, and
// the sums of sent and received are equal.
func terminated(prev, cur []report) bool {
	if len(prev) == 0 || len(prev) != len(cur) {
		return false
	}
	var sent, recv uint64
	for i, c := range cur {
		p := prev[i]
		if !p.idle || !c.idle || p.sent != c.sent || p.recv != c.recv {
			return false
		}
		sent += c.sent
		recv += c.recv
	}
	return sent == recv
}

// settled reports whether every rank in a wave was idle and as many
// tasks were received as sent: the next wave may then confirm
// termination, so it goes at once. After any other wave some rank has a
// task to run, or will receive one that is in flight, and its idle hint
// (or the master's own idleness) says when the next wave can find more.
func settled(w []report) bool {
	var sent, recv uint64
	for _, r := range w {
		if !r.idle {
			return false
		}
		sent += r.sent
		recv += r.recv
	}
	return len(w) > 0 && sent == recv
}

// firstGone returns the first rank in a wave that stopped waiting on
// the group, or -1.
func firstGone(w []report) int {
	for r, rep := range w {
		if rep.gone {
			return r
		}
	}
	return -1
}

// firstError returns the first rank's task error in a wave, and the
// rank, or -1.
func firstError(w []report) (string, int) {
	for r, rep := range w {
		if rep.err != "" {
			return rep.err, r
		}
	}
	return "", -1
}
