package main

import (
	"context"
	"errors"
	"fmt"
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
	// A Send whose chunks are out waits for their acknowledgements
	// whatever ctx says: closing the Link ends it when the case's time is up.
	defer context.AfterFunc(ctx, func() { l.Close() })()
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
	if err := streamLink(ctx, l, msg, cs.Warm, nil); err != nil {
		return 0, err
	}
	k, err := competeIf(comps)
	if err != nil {
		return 0, err
	}
	defer k.stop()
	t0 := time.Now()
	err = streamLink(ctx, l, msg, cs.Count, k.stop)
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
// what the rails still have queued. half, if not nil, is called once
// halfOf(n) Sends have returned (their messages acknowledged).
func streamLink(ctx context.Context, l *multirail.Link, msg []byte, n int, half func()) error {
	sem := make(chan struct{}, window(len(msg)))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	h := halfway{n: n}
	for range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := l.Send(ctx, msg)
			mu.Lock()
			first = errors.Join(first, err)
			if h.step() && half != nil {
				go half() // it waits for the flow to close
			}
			mu.Unlock()
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
