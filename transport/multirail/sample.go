package multirail

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/plexus-hpc/plexus/rail"
)

// SampleConfig says what Sample times. The zero value is the defaults.
type SampleConfig struct {
	// Sizes are the transfer sizes timed; nil means powers of two from
	// 4 B to 8 MiB (§III-C of the paper).
	Sizes []int
	// Reps is the number of round trips per size, the fastest kept;
	// zero means 3. Sizes up to smallSample take at least smallReps.
	Reps int
	// StreamBytes is the least a stream sample sends per size; zero
	// means 4 MiB, several times the bursts that shaped links let
	// through at once.
	StreamBytes int
}

func (c *SampleConfig) defaults() {
	if c.Sizes == nil {
		for n := 4; n <= 8<<20; n *= 2 {
			c.Sizes = append(c.Sizes, n)
		}
	}
	if c.Reps <= 0 {
		c.Reps = 3
	}
	if c.StreamBytes <= 0 {
		c.StreamBytes = 4 << 20
	}
}

// Sample times transfers of each size over conn, whose other end runs
// Echo, and returns the one-way time of each: the longer of half the
// fastest round trip and the time per message of a stream of them. The
// round trip is the rail's latency; the stream is its sustained rate,
// which a rail that passes a burst quickly and then slows (a token
// bucket, a link with credits) does not show to a lone ping-pong: each
// stream is sent twice, back to back, and the second timed, so that the
// burst is spent before the clock starts. ctx ends it by expiring conn's
// deadline.
func Sample(ctx context.Context, conn net.Conn, cfg SampleConfig) ([]rail.Sample, error) {
	cfg.defaults()
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	var out []rail.Sample
	for _, n := range cfg.Sizes {
		if n <= 0 || n > maxEcho {
			return nil, fmt.Errorf("multirail: sample size %d: want 1 to %d", n, maxEcho)
		}
		rtt, err := pingPong(conn, n, repsFor(n, cfg.Reps))
		if err != nil {
			return nil, sampleErr(ctx, err)
		}
		per, err := warmStream(conn, n, max(2, min(cfg.StreamBytes/n, maxStream)))
		if err != nil {
			return nil, sampleErr(ctx, err)
		}
		out = append(out, rail.Sample{Size: n, Time: max(rtt/2, per, 1)})
	}
	_, err := conn.Write(make([]byte, 8))
	return out, sampleErr(ctx, err)
}

// A round trip of a few kilobytes is mostly the wake-ups of its two
// ends, whose spread on a busy machine (tens of microseconds, a blocking
// read through Go's netpoller) is far more than the rails' differences:
// with the fastest of a few, rails alike sampled several times apart, and
// the strategy chose between them on that noise, a slower rail as often
// as not for messages its rate then held back (docs/benchmarks.md,
// "Rails: a rail's socket out of the netpoller"). The fastest of many is
// the rail's own time, and costs little at these sizes.
const (
	smallSample = 16 << 10
	smallReps   = 32
)

// repsFor is the round trips timed for an n-byte sample.
func repsFor(n, reps int) int {
	if n <= smallSample {
		return max(reps, smallReps)
	}
	return reps
}

// maxStream bounds a stream sample's messages: below a few kilobytes a
// message's time is its latency, which the ping-pong measures.
const maxStream = 1024

// pingPong returns the fastest of reps round trips of n bytes each way.
func pingPong(conn net.Conn, n, reps int) (time.Duration, error) {
	b := make([]byte, 8+n)
	binary.LittleEndian.PutUint32(b, uint32(n))
	binary.LittleEndian.PutUint32(b[4:], 1)
	best := time.Duration(1<<63 - 1)
	for range reps {
		t0 := time.Now()
		if _, err := conn.Write(b); err != nil {
			return 0, err
		}
		if _, err := io.ReadFull(conn, b[8:]); err != nil {
			return 0, err
		}
		best = min(best, time.Since(t0))
	}
	return best, nil
}

// warmStream times a stream of count messages of n bytes sent right
// after another such stream, untimed: the first drains what a shaped
// link lets through at once (a token bucket's burst, a switch's credits),
// so the time is the link's sustained rate, which a rail in steady use
// delivers. A stream timed from idle had the burst too: with a 256 KiB
// burst, a 1 MiB stream came out a third faster than the link's rate.
func warmStream(conn net.Conn, n, count int) (time.Duration, error) {
	if _, err := stream(conn, n, count); err != nil {
		return 0, err
	}
	return stream(conn, n, count)
}

// streamWrite is the most bytes of a stream written at once: messages
// shorter go several to a write, so that a stream times the rail's rate
// and not the sender's system calls. One write a message of a kilobyte
// timed the calls (and the receiver's wake-ups as it caught up), which
// take longer than a fast rail takes for the bytes, and by their noise the samples
// made a rail of half the rate look the faster (docs/benchmarks.md,
// "Rails: a rail's socket out of the netpoller").
const streamWrite = 64 << 10

// stream sends count messages of n bytes back to back and returns the
// time per message, until Echo's word that it has them all.
func stream(conn net.Conn, n, count int) (time.Duration, error) {
	per := max(1, streamWrite/n) // messages a write
	b := make([]byte, 8+min(per, count)*n)
	binary.LittleEndian.PutUint32(b, uint32(n))
	binary.LittleEndian.PutUint32(b[4:], uint32(count))
	t0 := time.Now()
	if _, err := conn.Write(b[:8]); err != nil {
		return 0, err
	}
	for sent := 0; sent < count; sent += per {
		if _, err := conn.Write(b[8 : 8+min(per, count-sent)*n]); err != nil {
			return 0, err
		}
	}
	if _, err := io.ReadFull(conn, b[:4]); err != nil {
		return 0, err
	}
	return time.Since(t0) / time.Duration(count), nil
}

func sampleErr(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("multirail: sampling: %w", err)
	}
	return nil
}

// maxEcho is the largest sample Echo answers.
const maxEcho = 64 << 20

// Echo answers Sample on conn until it says it is done (a size of 0):
// a ping-pong's bytes go back; a stream's are read, then acknowledged.
func Echo(conn net.Conn) error {
	var hb [8]byte
	var buf []byte
	for {
		if _, err := io.ReadFull(conn, hb[:]); err != nil {
			return fmt.Errorf("multirail: echo: %w", err)
		}
		n, count := int(binary.LittleEndian.Uint32(hb[:])), int(binary.LittleEndian.Uint32(hb[4:]))
		if n == 0 {
			return nil
		}
		if n > maxEcho || count < 1 || int64(n)*int64(count) > 1<<34 {
			return fmt.Errorf("%w: echo of %d messages of %d bytes, over the limits", ErrMalformed, count, n)
		}
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		if err := echoOne(conn, buf[:n], count); err != nil {
			return fmt.Errorf("multirail: echo: %w", err)
		}
	}
}

func echoOne(conn net.Conn, buf []byte, count int) error {
	for range count {
		if _, err := io.ReadFull(conn, buf); err != nil {
			return err
		}
	}
	if count == 1 {
		_, err := conn.Write(buf)
		return err
	}
	_, err := conn.Write(buf[:0:0])
	if err == nil {
		_, err = conn.Write([]byte{1, 2, 3, 4})
	}
	return err
}
