package rail_test

import (
	"fmt"
	"time"

	"github.com/plexus-hpc/plexus/rail"
)

// linear samples a rail of the given latency and bandwidth (bytes/s).
func linear(name string, lat time.Duration, bw float64) rail.Profile {
	var s []rail.Sample
	for n := 4; n <= 8<<20; n *= 2 {
		s = append(s, rail.Sample{Size: n, Time: lat + time.Duration(float64(n)/bw*1e9)})
	}
	p, _ := rail.NewProfile(name, s)
	return p
}

// A 4 MiB message over a 1 Gbit/s and a 500 Mbit/s rail: the fast one
// carries two thirds, and both chunks finish together.
func ExampleSplit() {
	rails := []rail.Rail{
		{Profile: linear("A", 50*time.Microsecond, 125e6)},
		{Profile: linear("B", 50*time.Microsecond, 62.5e6)},
	}
	for _, c := range rail.Split(rails, 4<<20, rail.Config{}) {
		fmt.Printf("rail %s: %d KiB, done at %.1f ms\n", rails[c.Rail].Profile.Name, c.Len>>10, c.Done.Seconds()*1e3)
	}
	// Output:
	// rail A: 2730 KiB, done at 22.4 ms
	// rail B: 1365 KiB, done at 22.4 ms
}
