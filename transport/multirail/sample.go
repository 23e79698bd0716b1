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

// SampleSizes is the sizes Sample times by default: powers of two from
// 4 B to 8 MiB (§III-C of the paper).
func SampleSizes() []int {
	var s []int
	for n := 4; n <= 8<<20; n *= 2 {
		s = append(s, n)
	}
	return s
}

// Sample times a ping-pong of each size over conn, whose other end runs
// Echo, and returns the one-way times: half the fastest of reps round
// trips (at least 1), the least disturbed by other traffic. ctx ends it
// by closing conn's deadline.
func Sample(ctx context.Context, conn net.Conn, sizes []int, reps int) ([]rail.Sample, error) {
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	reps = max(reps, 1)
	buf := make([]byte, 0)
	var out []rail.Sample
	for _, n := range sizes {
		if n <= 0 || n > maxEcho {
			return nil, fmt.Errorf("multirail: sample size %d: want 1 to %d", n, maxEcho)
		}
		if cap(buf) < 4+n {
			buf = make([]byte, 4+n)
		}
		b := buf[:4+n]
		binary.LittleEndian.PutUint32(b, uint32(n))
		best := time.Duration(1<<63 - 1)
		for range reps {
			t0 := time.Now()
			if _, err := conn.Write(b); err != nil {
				return nil, sampleErr(ctx, err)
			}
			if _, err := io.ReadFull(conn, b[4:]); err != nil {
				return nil, sampleErr(ctx, err)
			}
			best = min(best, time.Since(t0))
		}
		out = append(out, rail.Sample{Size: n, Time: max(best/2, 1)})
	}
	binary.LittleEndian.PutUint32(buf[:4], 0)
	_, err := conn.Write(buf[:4])
	return out, sampleErr(ctx, err)
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

// Echo answers Sample on conn until it says it is done (a size of 0).
func Echo(conn net.Conn) error {
	var hb [4]byte
	var buf []byte
	for {
		if _, err := io.ReadFull(conn, hb[:]); err != nil {
			return fmt.Errorf("multirail: echo: %w", err)
		}
		n := int(binary.LittleEndian.Uint32(hb[:]))
		if n == 0 {
			return nil
		}
		if n > maxEcho {
			return fmt.Errorf("%w: echo of %d bytes, the limit is %d", ErrMalformed, n, maxEcho)
		}
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		if _, err := io.ReadFull(conn, buf[:n]); err != nil {
			return fmt.Errorf("multirail: echo: %w", err)
		}
		if _, err := conn.Write(buf[:n]); err != nil {
			return fmt.Errorf("multirail: echo: %w", err)
		}
	}
}
