package coll

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// message fills buf with message seq of its own length and returns it:
// an 8-byte sequence number and a pattern derived from it, so that a
// misplaced or corrupted byte shows.
func message(buf []byte, seq int) []byte {
	n := 8 + seq%150 // up to three ring slots
	binary.LittleEndian.PutUint64(buf, uint64(seq))
	for i := 8; i < n; i++ {
		buf[i] = byte(seq*7 + i)
	}
	return buf[:n]
}

func checkMessage(p []byte, seq int) error {
	var want [256]byte
	if w := message(want[:], seq); !slices.Equal(p, w) {
		return fmt.Errorf("message %d: got %d bytes (seq %d), want %d bytes", seq, len(p), binary.LittleEndian.Uint64(p), len(w))
	}
	return nil
}

// Every member must deliver every message exactly once, in order.
func TestBroadcastInOrder(t *testing.T) {
	msgs := rounds(2000)
	eachTeam(t, func(t *testing.T, team *Team) {
		var mu sync.Mutex
		got := map[int]int{}
		run(t, team, func(ctx context.Context, m *Member) error {
			buf := make([]byte, 256)
			for seq := range msgs {
				var p []byte
				if m.IsRoot() {
					p = message(buf, seq)
				}
				n, err := m.Broadcast(ctx, buf, len(p))
				if err != nil {
					return err
				}
				if err := checkMessage(buf[:n], seq); err != nil {
					return err
				}
			}
			mu.Lock()
			got[m.CPU()] = msgs
			mu.Unlock()
			return nil
		})
		if len(got) != team.Size() {
			t.Errorf("%d of %d members finished", len(got), team.Size())
		}
	})
}

// Goroutines broadcasting at once at the root are serialised: every
// member sees one sequence containing each message once, each sender's in
// its order.
func TestConcurrentRootBroadcasters(t *testing.T) {
	const senders = 3
	per := rounds(500)
	eachTeam(t, func(t *testing.T, team *Team) {
		seqs := make(map[int][]uint64)
		var mu sync.Mutex
		run(t, team, func(ctx context.Context, m *Member) error {
			if m.IsRoot() {
				return broadcastFrom(ctx, m, senders, per)
			}
			seq, err := receiveAll(ctx, m, senders*per)
			mu.Lock()
			seqs[m.CPU()] = seq
			mu.Unlock()
			return err
		})
		checkSequences(t, seqs, senders, per)
	})
}

// broadcastFrom broadcasts per messages from each of senders goroutines,
// each message naming its sender and its number.
func broadcastFrom(ctx context.Context, m *Member, senders, per int) error {
	errs := make(chan error, senders)
	for g := range senders {
		go func() {
			var buf [8]byte
			for i := range per {
				binary.LittleEndian.PutUint64(buf[:], uint64(g)<<32|uint64(i))
				if _, err := m.Broadcast(ctx, buf[:], 8); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	var first error
	for range senders {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

func receiveAll(ctx context.Context, m *Member, n int) ([]uint64, error) {
	seq := make([]uint64, 0, n)
	var buf [8]byte
	for range n {
		if _, err := m.Broadcast(ctx, buf[:], 0); err != nil {
			return seq, err
		}
		seq = append(seq, binary.LittleEndian.Uint64(buf[:]))
	}
	return seq, nil
}

func checkSequences(t *testing.T, seqs map[int][]uint64, senders, per int) {
	t.Helper()
	var first []uint64
	for cpu, s := range seqs {
		if first == nil {
			first = s
		}
		if !slices.Equal(s, first) {
			t.Fatalf("member %d delivered a different sequence", cpu)
		}
	}
	next := make([]uint64, senders)
	for _, v := range first {
		g, i := v>>32, v&(1<<32-1)
		if i != next[g] {
			t.Fatalf("sender %d: message %d delivered where %d was due", g, i, next[g])
		}
		next[g]++
	}
	for g, n := range next {
		if len(seqs) > 0 && n != uint64(per) {
			t.Errorf("sender %d: %d of %d messages delivered", g, n, per)
		}
	}
}
