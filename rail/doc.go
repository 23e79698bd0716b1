// Package rail decides how messages between two hosts use several network
// links ("rails") at once, after NewMadeleine's multirail strategy
// (Brunet, Trahay, Denis, Cluster 2008): every rail is sampled, so the
// time of a transfer of any size can be predicted; small messages are
// aggregated onto the rail predicted to deliver them first; a large one is
// split so that its chunks finish at the same predicted time, counting the
// time until each rail is idle, and rails that would finish later than the
// others without them take no chunk.
//
//	fast, _ := rail.NewProfile("eth0", []rail.Sample{{Size: 4, Time: 30 * time.Microsecond}, {Size: 8 << 20, Time: 70 * time.Millisecond}})
//	slow, _ := rail.NewProfile("eth1", []rail.Sample{{Size: 4, Time: 30 * time.Microsecond}, {Size: 8 << 20, Time: 140 * time.Millisecond}})
//	rails := []rail.Rail{{Profile: fast}, {Profile: slow, Busy: 2 * time.Millisecond}}
//	chunks := rail.Split(rails, 4<<20, rail.Config{})
//	for _, c := range chunks {
//		fmt.Println(c.Rail, c.Offset, c.Len, c.Done) // every Done about equal
//	}
//
// Everything here is pure: no goroutines, no clocks, no sockets. Times are
// predictions measured from "now", which the caller (the TCP transport)
// owns; it submits the chunks, each on its own goroutine, and reassembles
// them in order at the receiver.
//
// # Predictions
//
// A Profile holds a rail's samples: transfer times of power-of-two sizes
// (or any sizes). Predict interpolates linearly between the two samples
// around a size, as the paper prescribes; below the smallest sample it
// gives that sample's time (a transfer costs at least the link's
// latency), above the largest it extends the last segment's slope. A
// Profile's times never fall as sizes grow: a sample faster than a
// smaller one (noise) is raised to the smaller one's time, so that a rail
// never carries more bytes in less time, which the split relies on.
//
// # Decisions
//
// Pick chooses the rail that delivers n bytes first. Split divides a
// message by dichotomy on the finishing time; Plan applies both to a
// queue of messages, updating each rail's busy time as it assigns work:
// messages under the split threshold (Threshold, found from the samples:
// the smallest size at which splitting pays for the cost of handing
// chunks to other goroutines) go whole and are packed together, larger
// ones are split.
package rail
