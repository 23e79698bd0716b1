package bench

// MTBenches returns the bench names of the multi-goroutine cases, after
// OSU's osu_latency_mt: G goroutines on rank 0, each paired by its own tag with
// a goroutine on rank 1, all running at once with MTSize-byte messages.
// Every pair first runs its warm-up (WarmupIters), then all wait for a
// barrier of the ranks, then run their MTIters timed iterations; T is the
// wall time on rank 0 from their release to the end of the last one.
//
//   - latency_mt: every pair ping-pongs n times; the value is T / (2n) µs,
//     which is T × G / (2 × all round trips). This is osu_latency_mt's
//     definition: it shares its iterations among the sender threads and
//     divides the elapsed time by twice each thread's share. It is the
//     one-way latency each goroutine sees; G over it is 2Gn / T, the
//     messages per second of both directions together.
//   - msgrate_mt: every sender streams n windows of MTWindow non-blocking
//     sends to its partner, each window acknowledged; the value is the
//     rank's rate, G × n × window messages over T.
//
// The cases keep their own bench names rather than being latency and
// msgrate with goroutines > 1: their G = 1 row runs through the goroutine
// harness (own tags, shared-out iterations), so it is not the same
// measurement as the single-goroutine latency and msgrate rows, which the
// targets and the Open MPI pairing select by name.
func MTBenches() []string { return []string{"latency_mt", "msgrate_mt"} }

// MaxGoroutines is the most goroutine pairs a multi-goroutine case runs.
const MaxGoroutines = 1_000_000

// MTSize is the message size of the multi-goroutine cases, in bytes.
const MTSize = 8

const (
	// mtMinIters keeps every pair past its first exchange, whose cost is
	// mostly the goroutine's start.
	mtMinIters = 2
	// mtInFlight bounds a rank's messages in flight in msgrate_mt
	// (goroutines × window), so that 100,000 goroutines neither exhaust the
	// unexpected-message budget nor take minutes.
	mtInFlight = 1 << 16
)

// MTIters is how many timed iterations (round trips or windows) each of g
// goroutine pairs runs given base for a single pair: base is shared out
// among the pairs, as osu_latency_mt shares its iterations among its
// sender threads, but every pair runs at least 2. The untimed warm-up is
// WarmupIters of the result.
func MTIters(base, g int) int {
	return max((base+g-1)/max(g, 1), mtMinIters)
}

// MTWindow is the window of each of g senders in msgrate_mt given the
// single-pair window: cut so that g × window stays within 65,536 messages
// in flight, and at least 1.
func MTWindow(window, g int) int {
	return max(1, min(window, mtInFlight/max(g, 1)))
}
