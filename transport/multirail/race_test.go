//go:build race

package multirail

// raceEnabled: under the race detector the runtime allocates where it
// otherwise does not (sync.Pool, for one, drops a share of what is put
// back), so allocation counts say nothing of this package there.
const raceEnabled = true
