//go:build race

package comm

// raceEnabled: the race detector changes allocation (sync.Pool drops
// items at random) and stack sizes, which some tests measure.
const raceEnabled = true
