// Million runs MPIV's experiment: rank 0 starts n goroutines that each send
// one message with its own tag to rank 1, where n goroutines each receive
// the message with their tag and check it. Every rank prints its wall time,
// its message rate and its peak resident memory (VmHWM).
//
//	plexus run -n 2 -- go run ./examples/million -n 1000000
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plexus-hpc/plexus/comm"
)

// doneTag is the tag of rank 1's last message: rank 0 must not close its
// connection while its eager messages may still be in flight.
const doneTag = math.MaxInt32

func main() {
	n := flag.Int("n", 1_000_000, "goroutines (and messages) per rank")
	size := flag.Int("size", 8, "message size in bytes (at least 8)")
	timeout := flag.Duration("timeout", 10*time.Minute, "give up after this long")
	prof := flag.String("cpuprofile", "", "write a CPU profile to this file plus the rank")
	flag.Parse()
	if *prof != "" {
		stop := profile(*prof + os.Getenv("PLEXUS_RANK"))
		defer stop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *n, max(*size, 8)); err != nil {
		fmt.Fprintln(os.Stderr, "million:", err)
		os.Exit(1)
	}
}

// profile starts a CPU profile into file and returns its stop.
func profile(file string) func() {
	f, err := os.Create(file)
	if err != nil {
		return func() {}
	}
	pprof.StartCPUProfile(f)
	return func() { pprof.StopCPUProfile(); f.Close() }
}

func run(ctx context.Context, n, size int) error {
	w, err := comm.Join(ctx)
	if err != nil {
		return err
	}
	defer w.Close()
	if w.Size() < 2 {
		return fmt.Errorf("need 2 ranks, have %d", w.Size())
	}
	start := time.Now()
	switch w.Rank() {
	case 0:
		err = sendAll(ctx, w, n, size)
	case 1:
		err = recvAll(ctx, w, n, size)
	}
	if err != nil {
		return err
	}
	d := time.Since(start)
	fmt.Printf("rank %d: %d goroutines, %d-byte messages, %v, %.0f msgs/s, peak RSS %s\n",
		w.Rank(), n, size, d.Round(time.Millisecond), float64(n)/d.Seconds(), peakRSS())
	return nil
}

// sendAll runs one sending goroutine per tag, then waits for rank 1's
// word that everything arrived.
func sendAll(ctx context.Context, w *comm.World, n, size int) error {
	err := spawn(n, func(tag int) error {
		return w.Send(ctx, 1, tag, message(tag, size))
	})
	if err != nil {
		return err
	}
	_, err = w.Recv(ctx, 1, doneTag, nil)
	return err
}

// recvAll runs one receiving goroutine per tag, each checking its message.
func recvAll(ctx context.Context, w *comm.World, n, size int) error {
	var got atomic.Int64
	err := spawn(n, func(tag int) error {
		buf := make([]byte, size)
		st, err := w.Recv(ctx, 0, tag, buf)
		if err != nil {
			return err
		}
		if st.Len != size || string(buf) != string(message(tag, size)) {
			return fmt.Errorf("tag %d: wrong message (%d bytes)", tag, st.Len)
		}
		got.Add(1)
		return nil
	})
	if err != nil {
		return err
	}
	if got.Load() != int64(n) {
		return fmt.Errorf("received %d of %d messages", got.Load(), n)
	}
	return w.Send(ctx, 0, doneTag, nil)
}

// spawn runs f(0..n-1), each on its own goroutine, and returns the first
// error.
func spawn(n int, f func(tag int) error) error {
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for tag := range n {
		wg.Go(func() {
			if err := f(tag); err != nil {
				once.Do(func() { first = err })
			}
		})
	}
	wg.Wait()
	return first
}

// message is the payload for tag: the tag, then bytes derived from it.
func message(tag, size int) []byte {
	b := make([]byte, size)
	binary.LittleEndian.PutUint64(b, uint64(tag))
	for i := 8; i < size; i++ {
		b[i] = byte(tag + i)
	}
	return b
}

// peakRSS returns VmHWM from /proc/self/status, or "unknown".
func peakRSS() string {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
