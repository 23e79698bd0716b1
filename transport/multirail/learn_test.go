package multirail

import (
	"net"
	"testing"
	"time"
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
