package am

import (
	"context"
	"fmt"
	"strings"

	"github.com/plexus-hpc/plexus/comm"
)

// handshake checks that every rank registered names: each rank sends its
// table to rank 0, which compares them with its own and answers each rank
// with "" or the first difference it found, so every rank fails alike.
func handshake(ctx context.Context, w *comm.World, tag int, names []string) error {
	table := strings.Join(names, "\x00")
	if w.Rank() != 0 {
		if err := w.Send(ctx, 0, tag, []byte(table)); err != nil {
			return fmt.Errorf("am: handshake with rank 0: %w", err)
		}
		return recvVerdict(ctx, w, tag)
	}
	verdicts := make([]string, w.Size())
	var first string
	for range w.Size() - 1 {
		theirs, src, err := recvTable(ctx, w, tag)
		if err != nil {
			return err
		}
		verdicts[src] = firstDifference(names, theirs, src)
		if first == "" {
			first = verdicts[src]
		}
	}
	for r := 1; r < w.Size(); r++ {
		v := verdicts[r]
		if v == "" {
			v = first
		}
		if err := w.Send(ctx, r, tag, []byte(v)); err != nil {
			return fmt.Errorf("am: handshake with rank %d: %w", r, err)
		}
	}
	if first != "" {
		return fmt.Errorf("%w: %s", ErrMismatch, first)
	}
	return nil
}

func recvTable(ctx context.Context, w *comm.World, tag int) ([]string, int, error) {
	st, err := w.Probe(ctx, comm.AnySource, tag)
	if err != nil {
		return nil, 0, fmt.Errorf("am: handshake: %w", err)
	}
	buf := make([]byte, st.Len)
	if _, err := w.Recv(ctx, st.Source, tag, buf); err != nil {
		return nil, 0, fmt.Errorf("am: handshake with rank %d: %w", st.Source, err)
	}
	if len(buf) == 0 {
		return nil, st.Source, nil
	}
	return strings.Split(string(buf), "\x00"), st.Source, nil
}

func recvVerdict(ctx context.Context, w *comm.World, tag int) error {
	st, err := w.Probe(ctx, 0, tag)
	if err != nil {
		return fmt.Errorf("am: handshake with rank 0: %w", err)
	}
	buf := make([]byte, st.Len)
	if _, err := w.Recv(ctx, 0, tag, buf); err != nil {
		return fmt.Errorf("am: handshake with rank 0: %w", err)
	}
	if len(buf) > 0 {
		return fmt.Errorf("%w: %s", ErrMismatch, buf)
	}
	return nil
}
