package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// PeerLine is one case as a peer program prints it: the Go program
// (bench/p2pprog) and the Open MPI ones (bench/peers/*.c) print the same
// JSON line from rank 0, for example
//
//	{"bench":"latency","ranks":2,"size":1,"iters":1000,"value":6.9}
//
// Value is in the unit of Unit(Bench). Goroutines, printed only by the
// multi-goroutine cases (MTBenches), is the number of goroutine pairs;
// Iters is then each pair's. Serialized, printed only by p2pprog, says
// that its world was serialized (comm.Config.Serialized).
type PeerLine struct {
	Bench      string  `json:"bench"`
	Ranks      int     `json:"ranks"`
	Size       int     `json:"size"`
	Goroutines int     `json:"goroutines,omitempty"`
	Iters      int     `json:"iters"`
	Value      float64 `json:"value"`
	Serialized bool    `json:"serialized,omitempty"`
	// Via names what carried rank 0's messages to each rank, in rank
	// order (comm.World.Transport: self, shm or tcp); Plexus only.
	Via []string `json:"via,omitempty"`
	// Levels is 2 where Plexus's collectives ran in two levels across
	// hosts (collective.Comm.Levels), else 0 or 1.
	Levels int `json:"levels,omitempty"`
}

// ErrPeerOutput reports a peer program's output line that is not a result.
var ErrPeerOutput = errors.New("bench: malformed peer output")

// Iteration rules the peer programs share, so both sides of a comparison
// do the same work.
const (
	smallLimit = 8 << 10
	minIters   = 4
)

// ScaledIters is how many timed iterations a peer program runs for
// messages of size bytes given base for small ones: above 8 KiB the bytes
// moved stay about constant, so 4 MiB cases do not take 500 times longer.
func ScaledIters(base, size int) int {
	n := base
	if size > smallLimit {
		n = base * smallLimit / size
	}
	return max(n, minIters)
}

// WarmupIters is how many untimed iterations precede iters timed ones.
func WarmupIters(iters int) int { return iters/10 + 1 }

// HeatFor is how long, at least, the peer programs warm up before their
// first case (bench/p2pprog's heat.go, bench/peers' common.h): ranks that
// slept through their start are slower for their first milliseconds.
const HeatFor = 100 * time.Millisecond

// Unit returns the unit of a peer bench's values.
func Unit(bench string) string {
	switch bench {
	case "bandwidth":
		return "MB/s"
	case "msgrate", "msgrate_mt", "am":
		return "msgs/s"
	case "gups":
		return "ops/s"
	}
	return "µs"
}

// ParsePeerOutput reads a peer program's standard output and returns its
// result lines. It drops plexus run's "[rank] " prefixes and ignores lines
// that are not JSON objects (launcher chatter, warnings), but a line that
// starts like one and does not parse, or names no bench, is an error.
func ParsePeerOutput(r io.Reader) ([]PeerLine, error) {
	var lines []PeerLine
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		text := stripRank(strings.TrimSpace(sc.Text()))
		if !strings.HasPrefix(text, "{") {
			continue
		}
		var l PeerLine
		if err := json.Unmarshal([]byte(text), &l); err != nil || l.Bench == "" {
			return nil, fmt.Errorf("%w: line %d: %q", ErrPeerOutput, n, text)
		}
		lines = append(lines, l)
	}
	return lines, sc.Err()
}

// stripRank removes a leading "[rank] " as plexus run writes it.
func stripRank(s string) string {
	if !strings.HasPrefix(s, "[") {
		return s
	}
	if _, rest, ok := strings.Cut(s, "] "); ok {
		return strings.TrimSpace(rest)
	}
	return s
}
