//go:build linux

package shm

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"testing"
)

// postsTwin is the reference for the collective area: each line a word
// and a payload under one mutex, the line chosen and the word encoded as
// posts.go's invariants say, with none of its atomics or offsets.
type postsTwin struct {
	mu    sync.Mutex
	lines map[[3]int]*twinLine // rank, lane, slot
}

type twinLine struct {
	word    uint64
	payload [PostBytes]byte
}

func (t *postsTwin) line(rank, lane int, seq uint64) *twinLine {
	k := [3]int{rank, lane, int(seq % PostDepth)}
	if t.lines[k] == nil {
		t.lines[k] = &twinLine{}
	}
	return t.lines[k]
}

func (t *postsTwin) write(rank, lane int, seq uint64, p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.line(rank, lane, seq)
	copy(l.payload[:], p)
	l.word = seq<<8 | uint64(len(p))
}

func (t *postsTwin) mark(rank, lane int, seq uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.line(rank, lane, seq).word = seq<<8 | 0xff
}

func (t *postsTwin) warm(rank, lane int, seq uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.line(rank, lane, seq)
	clear(l.payload[PostBytes-8:])
}

func (t *postsTwin) read(rank, lane int, seq uint64) (uint64, []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.line(rank, lane, seq)
	return l.word, bytes.Clone(l.payload[:])
}

// TestPostsTwin drives the area and its reference with the same random
// writes, marks and warms by every rank on every lane, and compares every
// line each rank sees after each step.
func TestPostsTwin(t *testing.T) {
	const n = 3
	eps, _ := openN(t, shmDir(t), n, nil)
	posts := make([][]*Posts, n)
	for r := range n {
		for lane := range PostLanes {
			p, err := eps[r].Posts(lane)
			if err != nil {
				t.Fatal(err)
			}
			posts[r] = append(posts[r], p)
		}
	}
	twin := &postsTwin{lines: map[[3]int]*twinLine{}}
	rng := rand.New(rand.NewPCG(1, 2))
	for step := range count(3000) {
		r, lane, seq := rng.IntN(n), rng.IntN(PostLanes), uint64(rng.IntN(64))
		switch rng.IntN(3) {
		case 0:
			p := make([]byte, rng.IntN(PostBytes+1))
			for i := range p {
				p[i] = byte(rng.Uint32())
			}
			if err := posts[r][lane].Write(seq, p); err != nil {
				t.Fatal(err)
			}
			twin.write(r, lane, seq, p)
		case 1:
			posts[r][lane].Mark(seq)
			twin.mark(r, lane, seq)
		default:
			posts[r][lane].Warm(seq)
			twin.warm(r, lane, seq)
		}
		viewer := rng.IntN(n)
		for s := range uint64(PostDepth) {
			w, p := twin.read(r, lane, s)
			got := posts[viewer][lane]
			if gw := got.Word(r, s).Load(); gw != w {
				t.Fatalf("step %d: rank %d sees rank %d lane %d line %d word %#x, twin %#x", step, viewer, r, lane, s, gw, w)
			}
			if gp := got.Payload(r, s, PostBytes); !bytes.Equal(gp, p) {
				t.Fatalf("step %d: rank %d sees rank %d lane %d line %d payload %x, twin %x", step, viewer, r, lane, s, gp, p)
			}
		}
	}
}
