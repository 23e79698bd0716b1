// Ring passes a token around the ranks: rank 0 sends it to rank 1, every
// rank adds its rank number and passes it on to the next, and rank 0
// receives it back from the last rank, for as many laps as asked. Rank 0
// prints the token and the time per hop.
//
//	plexus run -n 4 -- go run ./examples/ring -laps 1000
package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/plexus-hpc/plexus/comm"
)

const tag = 1

func main() {
	laps := flag.Int("laps", 100, "times the token goes round")
	timeout := flag.Duration("timeout", time.Minute, "give up after this long")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *laps); err != nil {
		fmt.Fprintln(os.Stderr, "ring:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, laps int) error {
	w, err := comm.Join(ctx)
	if err != nil {
		return err
	}
	defer w.Close()
	if w.Size() < 2 {
		return fmt.Errorf("need at least 2 ranks, have %d", w.Size())
	}
	start := time.Now()
	token, err := pass(ctx, w, laps)
	if err != nil {
		return err
	}
	if w.Rank() != 0 {
		return nil
	}
	n := w.Size()
	if want := uint64(laps * n * (n - 1) / 2); token != want {
		return fmt.Errorf("token %d after %d laps, want %d", token, laps, want)
	}
	hop := time.Since(start) / time.Duration(laps*n)
	fmt.Printf("token %d after %d laps of %d ranks, %v per hop\n", token, laps, n, hop)
	return nil
}

// pass runs this rank's part of the laps and returns the token as rank 0
// last received it. Every rank receives from its left neighbour and sends
// to its right one; rank 0 sends first, so the ring never deadlocks.
func pass(ctx context.Context, w *comm.World, laps int) (uint64, error) {
	left := (w.Rank() + w.Size() - 1) % w.Size()
	right := (w.Rank() + 1) % w.Size()
	buf := make([]byte, 8)
	var token uint64
	for range laps {
		if w.Rank() != 0 {
			if err := recvToken(ctx, w, left, buf, &token); err != nil {
				return 0, err
			}
		}
		binary.LittleEndian.PutUint64(buf, token+uint64(w.Rank()))
		if err := w.Send(ctx, right, tag, buf); err != nil {
			return 0, err
		}
		if w.Rank() == 0 {
			if err := recvToken(ctx, w, left, buf, &token); err != nil {
				return 0, err
			}
		}
	}
	return token, nil
}

// recvToken receives the token from peer into buf and *token.
func recvToken(ctx context.Context, w *comm.World, peer int, buf []byte, token *uint64) error {
	st, err := w.Recv(ctx, peer, tag, buf)
	if err != nil {
		return err
	}
	if st.Len != len(buf) {
		return fmt.Errorf("token of %d bytes from rank %d, want %d", st.Len, peer, len(buf))
	}
	*token = binary.LittleEndian.Uint64(buf)
	return nil
}
