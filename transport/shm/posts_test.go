//go:build linux

package shm

import (
	"encoding/binary"
	"errors"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestPostsAllToAll: three ranks post a payload per round and read every
// rank's post of the round, as a flat allreduce does; every payload read
// is the one its writer posted for that round, over more rounds than
// lines, so lines are reused under the reuse rule.
func TestPostsAllToAll(t *testing.T) {
	const n = 3
	eps, _ := openN(t, shmDir(t), n, nil)
	rounds := uint64(count(5000))
	var wg sync.WaitGroup
	for r := range n {
		p, err := eps[r].Posts(1)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { postRounds(t, p, rounds) })
	}
	wg.Wait()
}

// postRounds is one rank of TestPostsAllToAll.
func postRounds(t *testing.T, p *Posts, rounds uint64) {
	buf := make([]byte, PostBytes)
	for seq := uint64(1); seq <= rounds; seq++ {
		binary.LittleEndian.PutUint64(buf, seq*100+uint64(p.Rank()))
		if err := p.Write(seq, buf[:8+int(seq%8)]); err != nil {
			t.Error(err)
			return
		}
		for r := range p.Ranks() {
			for p.Word(r, seq).Load() < PostWord(seq) {
				runtime.Gosched()
			}
			if n := PostLen(p.Word(r, seq).Load()); n != 8+int(seq%8) {
				t.Errorf("rank %d's post %d says %d bytes, want %d", r, seq, n, 8+int(seq%8))
				return
			}
			if got := binary.LittleEndian.Uint64(p.Payload(r, seq, 8)); got != seq*100+uint64(r) {
				t.Errorf("rank %d read %d from rank %d's post %d, want %d", p.Rank(), got, r, seq, seq*100+uint64(r))
				return
			}
		}
	}
}

// TestPostsBadArgs: a lane outside the area and a payload longer than a
// line are errors.
func TestPostsBadArgs(t *testing.T) {
	eps, _ := openN(t, shmDir(t), 2, nil)
	if _, err := eps[0].Posts(PostLanes); err == nil {
		t.Error("lane PostLanes accepted")
	}
	p, err := eps[0].Posts(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write(1, make([]byte, PostBytes+1)); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("long post = %v, want an error naming the limit", err)
	}
	if w := p.Word(0, 1).Load(); w != 0 {
		t.Errorf("refused post left word %d", w)
	}
}

// TestPostsWakeSleeper: a post clears a sleeping rank's sleep word (and
// rings its doorbell), so a rank that sleeps while waiting for posts is
// woken by them.
func TestPostsWakeSleeper(t *testing.T) {
	eps, _ := openN(t, shmDir(t), 2, func(c *Config) { c.Passive = true })
	w := eps[0].seg.wait(1)
	atomic.StoreUint32(w, 1)
	p, _ := eps[0].Posts(0)
	p.Mark(1)
	if got := atomic.LoadUint32(w); got != 0 {
		t.Errorf("sleep word after a post = %d, want 0 (woken)", got)
	}
	q, _ := eps[1].Posts(0)
	if got := q.Word(0, 1).Load(); got != PostWord(1)|MarkLen {
		t.Errorf("rank 1 sees rank 0's post word %#x, want %#x (a mark of post 1)", got, PostWord(1)|MarkLen)
	}
}

// TestRefusesOlderLayout: a segment written by a build of an older layout
// (version 6, no collective area) is refused with a message naming both
// versions.
func TestRefusesOlderLayout(t *testing.T) {
	dir := shmDir(t)
	a, err := Open(testConfig(dir, "old", 0, 2))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	f, err := os.OpenFile(a.Path(), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	var v [8]byte
	binary.LittleEndian.PutUint64(v[:], version-1)
	_, err = f.WriteAt(v[:], versionOff)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(testConfig(dir, "old", 1, 2))
	if !errors.Is(err, ErrBadSegment) || !strings.Contains(err.Error(), "layout version 6, this build reads 7") {
		t.Errorf("Open of an older segment = %v, want ErrBadSegment naming versions 6 and 7", err)
	}
}

// TestPostsWarm: warming a line touches only the last payload word, never
// the sequence word readers poll nor the rest of the payload.
func TestPostsWarm(t *testing.T) {
	eps, _ := openN(t, shmDir(t), 2, nil)
	p, _ := eps[0].Posts(2)
	in := make([]byte, PostBytes)
	for i := range in {
		in[i] = byte(i + 1)
	}
	if err := p.Write(1, in); err != nil {
		t.Fatal(err)
	}
	p.Warm(1 + PostDepth) // the same line
	q, _ := eps[1].Posts(2)
	if w := q.Word(0, 1).Load(); w != PostWord(1)|PostBytes {
		t.Errorf("word after Warm = %#x, want %#x", w, PostWord(1)|PostBytes)
	}
	got := q.Payload(0, 1, PostBytes)
	if string(got[:PostBytes-8]) != string(in[:PostBytes-8]) {
		t.Errorf("payload before the last word changed: %x", got)
	}
	if binary.LittleEndian.Uint64(got[PostBytes-8:]) != 0 {
		t.Errorf("last payload word after Warm = %x, want 0", got[PostBytes-8:])
	}
}
