package multirail

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/rail"
)

// rateConn writes at most rate bytes a second, as a shaped link does.
type rateConn struct {
	net.Conn
	rate float64
}

func (c rateConn) Write(b []byte) (int, error) {
	time.Sleep(time.Duration(float64(len(b)) / c.rate * 1e9))
	return c.Conn.Write(b)
}

// TestLinkLearnsSlowRail: rail 0 delivers at a quarter of the rate its
// profile says (other traffic on it), rail 1 at its profile's. From the
// acks the Link learns rail 0's slowdown and moves bytes to rail 1: over
// the later messages rail 0 carries a far smaller share than at first.
func TestLinkLearnsSlowRail(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: paced rails take a second")
	}
	if raceEnabled {
		// The detector makes the CPU, not the pacing, bound the fast rail
		// (its slowdown came out near the slow one's): what is learnt is
		// the detector's speed. TestLinkLearnsWhilePipelined keeps the
		// learning under -race.
		t.Skip("-race: the detector, not the pacing, sets the rails' speeds")
	}
	a, b := pair(t, 2, Config{}, func(i, side int, c net.Conn) net.Conn {
		if side == 1 {
			return c
		}
		rate := 200e6 // rail 1's profile
		if i == 0 {
			rate = 25e6 // rail 0's profile says 100e6
		}
		return rateConn{c, rate}
	})
	msgs := randomMessages(31, 1, 1<<20)
	msgs[0] = make([]byte, 1<<20)
	exchange(t, a, b, msgs)
	first := a.Stats()
	share0 := float64(first.Bytes[0]) / float64(first.Bytes[0]+first.Bytes[1])
	more := make([][]byte, 30)
	for i := range more {
		more[i] = make([]byte, 1<<20)
	}
	exchange(t, a, b, more)
	st := a.Stats()
	d0, d1 := st.Bytes[0]-first.Bytes[0], st.Bytes[1]-first.Bytes[1]
	later0 := float64(d0) / float64(d0+d1)
	// Relative bounds: on a busy machine (or under -race) every write is
	// slower than its pacing, which the Link learns too, for both rails.
	if st.Slowdown[0] < 2*st.Slowdown[1] {
		t.Errorf("slowdowns learnt %v: want rail 0's about four times rail 1's", st.Slowdown)
	}
	if later0 > 0.75*share0 {
		t.Errorf("rail 0 carried %.2f of the first message and %.2f of the later ones: want far less later", share0, later0)
	}
}

// TestLinkLearnsWhilePipelined posts messages back to back over two rails
// that deliver at their profiles' rates, so that hundreds of chunks are
// in flight and each is acknowledged long after it was posted, while the
// slowdowns move. Each acknowledgement must be weighed against the
// slowdown its prediction was made with: against the current one, the
// slowdowns fed on themselves and ran to their bound within a second.
func TestLinkLearnsWhilePipelined(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: paced rails take a second")
	}
	rates := []float64{100e6, 50e6}
	var ca, cb []net.Conn
	var ps []rail.Profile
	for _, rate := range rates {
		x, y := net.Pipe()
		ca, cb = append(ca, rateConn{x, rate}), append(cb, y)
		ps = append(ps, linear(t, 50*time.Microsecond, rate))
	}
	a, err := New(ca, ps, Config{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(cb, ps, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { a.Close(); b.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const count = 250
	go func() {
		for range count {
			if _, err := b.Recv(ctx); err != nil {
				return
			}
		}
	}()
	msg := make([]byte, 512<<10)
	for range count {
		if err := a.Post(ctx, msg, func(error) {}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	st := a.Stats()
	for i, s := range st.Slowdown {
		if s > slowMax/2 || s < slowMin*1.2 {
			t.Errorf("rail %d learnt a slowdown of %.2f on a rail that runs at its profile's rate (all %v)", i, s, st.Slowdown)
		}
	}
	if r := float64(st.Bytes[0]) / float64(st.Bytes[1]); r < 1.5 || r > 2.5 {
		t.Errorf("bytes per rail %v: want about 2:1, the rates' ratio", st.Bytes)
	}
}
