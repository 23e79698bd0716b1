package am

import (
	"math/rand/v2"
	"sync"
	"testing"
	"unsafe"
)

// refActivity is activity's reference twin: one mutex, every note
// counted.
type refActivity struct {
	mu    sync.Mutex
	count uint64
}

func (a *refActivity) note() {
	a.mu.Lock()
	a.count++
	a.mu.Unlock()
}

func (a *refActivity) sample() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.count
}

// TestActivityTwin drives activity and its twin with the same random
// runs of notes (on several slots) and samples: after every sample both
// say alike whether a note came since the sample before.
func TestActivityTwin(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for run := range 200 {
		var a activity
		var ref refActivity
		seen := make([]uint64, 1+rng.IntN(4))
		last, refLast := a.sample(), ref.sample()
		for op := range 100 {
			if rng.IntN(3) > 0 {
				a.note(&seen[rng.IntN(len(seen))])
				ref.note()
				continue
			}
			n, refN := a.sample(), ref.sample()
			if changed, want := n != last, refN != refLast; changed != want {
				t.Fatalf("run %d, op %d: activity says changed %v, twin %v", run, op, changed, want)
			}
			last, refLast = n, refN
		}
	}
}

// TestActivityFirstNote: a note before any sample counts, so a first Push
// after appends does not return early.
func TestActivityFirstNote(t *testing.T) {
	var a activity
	var seen uint64
	before := a.count.Load()
	a.note(&seen)
	if a.count.Load() == before {
		t.Fatal("a note before any sample was not counted")
	}
}

// TestActivityConcurrent: a note that completes between two samples
// always changes the second, while other goroutines note and sample at
// once (run with -race).
func TestActivityConcurrent(t *testing.T) {
	rounds := 20000
	if testing.Short() {
		rounds = 2000
	}
	var a activity
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := range 3 {
		wg.Go(func() { // noise: other outboxes noting, other samplers
			var mu sync.Mutex
			var seen uint64
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if (i+g)%2 == 0 {
					mu.Lock()
					a.note(&seen)
					mu.Unlock()
				} else {
					a.sample()
				}
			}
		})
	}
	var seen uint64
	for i := range rounds {
		s1 := a.sample()
		a.note(&seen)
		if s2 := a.sample(); s2 == s1 {
			t.Fatalf("round %d: a note between two samples left them equal (%d)", i, s1)
		}
	}
	close(stop)
	wg.Wait()
}

// TestActivityLayout: count and epoch sit on lines of their own.
func TestActivityLayout(t *testing.T) {
	var a activity
	if got := unsafe.Sizeof(a); got != 2*cacheLine {
		t.Errorf("activity is %d bytes, want %d", got, 2*cacheLine)
	}
	if off := unsafe.Offsetof(a.epoch); off != cacheLine {
		t.Errorf("epoch at offset %d, want %d", off, cacheLine)
	}
}
