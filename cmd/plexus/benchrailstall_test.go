package main

import (
	"context"
	"net"
	"runtime"
	"testing"
	"time"
)

// TestCaseLimit: a case's limit is over a minute, grows with its
// messages and bytes, and leaves the largest bandwidth case of the
// benchmark many times what it takes on a rail of 100 Mbit/s.
func TestCaseLimit(t *testing.T) {
	small := railCase{Bench: "latency", Size: 4, Warm: 101, Count: 1000}
	more := railCase{Bench: "latency", Size: 4, Warm: 1001, Count: 10000}
	big := railCase{Bench: "bandwidth", Size: 64 << 20, Count: 4}
	if caseLimit(small) <= time.Minute || caseLimit(more) <= caseLimit(small) {
		t.Errorf("limits %v for 1101 round trips, %v for 11001: want over a minute and growing", caseLimit(small), caseLimit(more))
	}
	at100M := time.Duration(float64(4*64<<20*8) / 100e6 * float64(time.Second))
	if caseLimit(big) < 5*at100M {
		t.Errorf("limit %v for 4 messages of 64 MiB, which take %v at 100 Mbit/s", caseLimit(big), at100M)
	}
}

// TestTimeStreamEndsWithItsContext: a peer that stops answering fails
// the case once its context ends, for a ping-pong and for a stream, over
// a connection with deadlines and over tcppoll's spinning one, which has
// none; the benchmark goes on to its next case instead of hanging (an
// MPTCP connection once stalled for good).
func TestTimeStreamEndsWithItsContext(t *testing.T) {
	cases := []railCase{
		{Bench: "latency", Size: 16, Warm: 1, Count: 10},
		{Bench: "latency", Size: 16, Warm: 0, Count: 10, Aggregated: true},
	}
	conns := map[string]func(t *testing.T) net.Conn{
		"pipe": func(t *testing.T) net.Conn {
			a, b := net.Pipe()
			t.Cleanup(func() { a.Close(); b.Close() })
			return a
		},
		"tcppoll": func(t *testing.T) net.Conn {
			if runtime.GOOS != "linux" {
				t.Skip("tcppoll is Linux-only")
			}
			a, b := loopbackPair(t)
			c, err := newSpinConn(a)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close(); b.Close() })
			return c
		},
	}
	for name, mk := range conns {
		for _, cs := range cases {
			kind := "pingpong"
			if cs.Aggregated {
				kind = "stream"
			}
			t.Run(name+"/"+kind, func(t *testing.T) {
				c := mk(t)
				ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
				defer cancel()
				done := make(chan error, 1)
				go func() {
					_, err := timeStream(ctx, c, cs, nil)
					done <- err
				}()
				select {
				case err := <-done:
					if err == nil {
						t.Fatal("a case whose peer never answered succeeded")
					}
				case <-time.After(10 * time.Second):
					t.Fatal("the case still runs 10 s after its context ended")
				}
			})
		}
	}
}
