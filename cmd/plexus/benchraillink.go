package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/plexus-hpc/plexus/transport/multirail"
)

// linkCase is rank 0's side of a case of a Link impl: fresh connections
// on every rail (a Link owns its connections), the competing flow's if
// any, then the timed messages. The caller closes the Link (the closer)
// once rank 1 has closed its end: rank 1's last Send of a ping-pong
// waits for an acknowledgement that rank 0's Link may still have queued.
func (d *railDriver) linkCase(ctx context.Context, cs railCase) (time.Duration, func(), error) {
	conns, err := d.s.connect(ctx)
	if err != nil {
		return 0, nil, err
	}
	comps, err := dialCompetitors(ctx, d.s, cs)
	if err != nil {
		closeAll(conns)
		return 0, nil, err
	}
	l, err := multirail.New(conns, cs.Profiles, linkConfig(cs, splits[cs.Impl]))
	if err != nil {
		closeAll(conns)
		closeAll(comps)
		return 0, nil, err
	}
	closer := func() { l.Close(); closeAll(comps) }
	t, err := timeLink(ctx, l, cs, comps)
	return t, closer, err
}

// linkConfig is both ends' Link configuration for a case. The window
// holds the messages a bandwidth case keeps in flight (window(size), two
// of the largest), as bench/peers/railbw.c does for Open MPI: with the
// default window a 64 MiB message waited for the one before it to be
// acknowledged whole, idling the rails for a round trip every message.
// Recv polls the rails: each rank's ping-pong waits in Recv for the
// peer's answer, as Open MPI's waits in MPI_Recv.
func linkConfig(cs railCase, split multirail.Split) multirail.Config {
	return multirail.Config{Split: split, Slice: cs.Slice, Poll: true,
		Window: max(multirail.DefaultWindow, window(cs.Size)*cs.Size)}
}

// timeLink runs the case's messages over l, the warm-up ones untimed.
func timeLink(ctx context.Context, l *multirail.Link, cs railCase, comps []net.Conn) (time.Duration, error) {
	msg := make([]byte, cs.Size)
	if cs.pingPong() {
		if err := pingLink(ctx, l, msg, cs.Warm); err != nil {
			return 0, err
		}
		t0 := time.Now()
		err := pingLink(ctx, l, msg, cs.Count)
		return time.Since(t0), err
	}
	if err := streamLink(ctx, l, msg, cs.Warm); err != nil {
		return 0, err
	}
	if len(comps) > 0 {
		compete(comps[0], competeFor(cs.Profiles, cs.Size, cs.Size*cs.Count))
	}
	t0 := time.Now()
	err := streamLink(ctx, l, msg, cs.Count)
	return time.Since(t0), err
}

// pingLink sends msg n times, each after the peer's answer to the last.
// Each answer is handed back to the Link (Release), as an MPI program
// receives into the same buffer every time.
func pingLink(ctx context.Context, l *multirail.Link, msg []byte, n int) error {
	for range n {
		if err := l.Send(ctx, msg); err != nil {
			return err
		}
		m, err := l.Recv(ctx)
		if err != nil {
			return err
		}
		l.Release(m)
	}
	return nil
}

// streamLink sends msg n times, window(len(msg)) of them in flight, each
// Send on a goroutine of its own: the Link plans each message counting
// what the rails still have queued.
func streamLink(ctx context.Context, l *multirail.Link, msg []byte, n int) error {
	sem := make(chan struct{}, window(len(msg)))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Send(ctx, msg); err != nil {
				mu.Lock()
				first = errors.Join(first, err)
				mu.Unlock()
			}
			<-sem
		}()
	}
	wg.Wait()
	return first
}

// serveLink is rank 1's side of a Link impl's case.
func serveLink(ctx context.Context, s *railSession, cs railCase, got *int64) (func(), error) {
	split, ok := splits[cs.Impl]
	if !ok {
		return nil, fmt.Errorf("no impl %q", cs.Impl)
	}
	conns, err := s.connect(ctx)
	if err != nil {
		return nil, err
	}
	comps, err := acceptCompetitors(ctx, s, cs)
	if err != nil {
		closeAll(conns)
		return nil, err
	}
	l, err := multirail.New(conns, cs.Profiles, linkConfig(cs, split))
	if err != nil {
		closeAll(conns)
		closeAll(comps)
		return nil, err
	}
	closer := func() { l.Close(); closeAll(comps) }
	for range cs.Warm + cs.Count {
		m, err := l.Recv(ctx)
		if err != nil {
			return closer, err
		}
		*got += int64(len(m))
		if cs.pingPong() {
			if err := l.Send(ctx, m); err != nil {
				return closer, err
			}
		}
		l.Release(m) // Send has copied it or seen it acknowledged
	}
	return closer, nil
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

// compete writes to c as fast as it takes bytes, for d, then closes it:
// a bulk TCP flow sharing the rail with the benchmark.
func compete(c net.Conn, d time.Duration) {
	c.SetWriteDeadline(time.Now().Add(d))
	go func() {
		buf := make([]byte, 256<<10)
		for {
			if _, err := c.Write(buf); err != nil {
				break
			}
		}
		c.Close()
	}()
}
