package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// The competing flow of --compete: a bulk TCP connection on the fastest
// rail that writes as fast as the rail takes bytes from when a bandwidth
// case's timed messages begin until half of their bytes are through,
// the first half of that impl's own run. Each impl thus moves half of its
// bytes against the flow and half without it, whatever its speed; a flow
// of a fixed length would cover less of a slower impl's run, and so
// weigh least on the impls it slows most (docs/design/rails.md, "Under a
// competing flow").

// competeLimit bounds a competing flow that nobody stops (a case that
// failed before its halfway point): longer than any case.
const competeLimit = 10 * time.Minute

// competitor is one running competing flow. stop may be called any
// number of times, from any goroutine.
type competitor struct {
	c    net.Conn
	once sync.Once
	done chan struct{}
}

// startCompeting writes to c until stopped (or competeLimit), then
// closes it. A nil c gives a competitor whose stop does nothing, for a
// case without competition.
func startCompeting(c net.Conn) *competitor {
	k := &competitor{c: c, done: make(chan struct{})}
	if c == nil {
		close(k.done)
		return k
	}
	c.SetWriteDeadline(time.Now().Add(competeLimit))
	go func() {
		defer close(k.done)
		buf := make([]byte, 256<<10)
		for {
			if _, err := c.Write(buf); err != nil {
				break
			}
		}
		c.Close()
	}()
	return k
}

// stop ends the flow: its write in progress fails at once, and stop
// returns once the connection is closed.
func (k *competitor) stop() {
	k.once.Do(func() {
		if k.c != nil {
			k.c.SetWriteDeadline(time.Now())
		}
	})
	<-k.done
}

// competeIf starts the case's competing flow if it has one: comps holds
// it, first.
func competeIf(comps []net.Conn) *competitor {
	if len(comps) == 0 {
		return startCompeting(nil)
	}
	return startCompeting(comps[0])
}

// halfOf is how many of a case's n timed messages must be through before
// its competing flow stops: the first half of its bytes, rounded up.
func halfOf(n int) int { return (n + 1) / 2 }

// halfway counts a case's n messages through; step, called once for
// each, reports true for the one that completes the first half. Not safe
// for concurrent use.
type halfway struct{ n, through int }

func (h *halfway) step() bool {
	h.through++
	return h.through == halfOf(h.n)
}

// dialCompetitors opens rank 0's ends of the case's competing flows, on
// the fastest rail.
func dialCompetitors(ctx context.Context, s *railSession, cs railCase) ([]net.Conn, error) {
	var out []net.Conn
	for range cs.Compete {
		c, err := s.dial(ctx, s.rails[cs.Fast])
		if err != nil {
			closeAll(out)
			return nil, fmt.Errorf("competing flow: %w", err)
		}
		out = append(out, c)
	}
	return out, nil
}

// acceptCompetitors accepts rank 1's ends of the competing flows and
// reads each, discarding, until rank 0 closes it.
func acceptCompetitors(ctx context.Context, s *railSession, cs railCase) ([]net.Conn, error) {
	var out []net.Conn
	for range cs.Compete {
		c, err := s.accept(ctx, s.lns[cs.Fast])
		if err != nil {
			closeAll(out)
			return nil, fmt.Errorf("competing flow: %w", err)
		}
		out = append(out, c)
		go io.Copy(io.Discard, c)
	}
	return out, nil
}
