package task

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

func TestTerminated(t *testing.T) {
	idle := func(sent, recv uint64) report { return report{idle: true, sent: sent, recv: recv} }
	busy := report{sent: 1, recv: 1}
	for _, tc := range []struct {
		name      string
		prev, cur []report
		want      bool
	}{
		{"no previous wave", nil, []report{idle(0, 0)}, false},
		{"all idle, balanced, unchanged", []report{idle(2, 1), idle(1, 2)}, []report{idle(2, 1), idle(1, 2)}, true},
		{"a rank busy now", []report{idle(2, 1), idle(1, 2)}, []report{idle(2, 1), busy}, false},
		{"a rank busy before", []report{busy, idle(0, 1)}, []report{idle(1, 1), idle(0, 1)}, false},
		{"a task in flight", []report{idle(3, 1), idle(1, 2)}, []report{idle(3, 1), idle(1, 2)}, false},
		{"counters moved", []report{idle(1, 1), idle(1, 1)}, []report{idle(2, 1), idle(1, 2)}, false},
		{"waves of different worlds", []report{idle(0, 0)}, []report{idle(0, 0), idle(0, 0)}, false},
	} {
		if got := terminated(tc.prev, tc.cur); got != tc.want {
			t.Errorf("%s: terminated = %v, want %v", tc.name, got, tc.want)
		}
	}
	if text, r := firstError([]report{{}, {err: "x"}, {err: "y"}}); text != "x" || r != 1 {
		t.Errorf("firstError = %q, %d", text, r)
	}
}

// TestSettled: the next wave goes at once only after one that found
// every rank idle and nothing in flight; otherwise the master waits for
// an idle hint.
func TestSettled(t *testing.T) {
	idle := func(sent, recv uint64) report { return report{idle: true, sent: sent, recv: recv} }
	for _, tc := range []struct {
		name string
		w    []report
		want bool
	}{
		{"no wave yet", nil, false},
		{"all idle, balanced", []report{idle(2, 1), idle(1, 2)}, true},
		{"a rank busy", []report{idle(0, 0), {sent: 0, recv: 0}}, false},
		{"a task in flight", []report{idle(1, 0), idle(0, 0)}, false},
	} {
		if got := settled(tc.w); got != tc.want {
			t.Errorf("%s: settled = %v, want %v", tc.name, got, tc.want)
		}
	}
	for fails := range 8 {
		if d := waveFallback(fails); d < time.Millisecond || d > 16*time.Millisecond {
			t.Errorf("waveFallback(%d) = %v: want a fallback of 1 to 16 ms, above the poller's millisecond", fails, d)
		}
	}
}

// sim is a model of a group on ranks: tasks held, run, spawned and sent
// between ranks, and a master's waves that read one rank at a time while
// everything else goes on, in an order a seeded random source picks.
type sim struct {
	rnd      *rand.Rand
	active   []int    // tasks held per rank
	held     []bool   // the rank's code may still spawn
	sent     []uint64 // tasks sent per rank
	recv     []uint64 // tasks received per rank
	inFlight []int    // destination of each task in flight
	budget   int      // tasks that may still be made, so the run ends
	wave     []report // the wave in progress
	prev     []report // the last completed wave
	decide   func(prev, cur []report) bool
}

func newSim(seed uint64, ranks int, decide func(prev, cur []report) bool) *sim {
	s := &sim{rnd: rand.New(rand.NewPCG(seed, 1)), active: make([]int, ranks), held: make([]bool, ranks),
		sent: make([]uint64, ranks), recv: make([]uint64, ranks), budget: 60, decide: decide}
	for r := range ranks {
		s.held[r] = true
	}
	return s
}

func (s *sim) live() bool {
	if len(s.inFlight) > 0 {
		return true
	}
	for r := range s.active {
		if s.active[r] > 0 || s.held[r] {
			return true
		}
	}
	return false
}

// step makes one random move; it returns true when a wave completes
// and the rule under test declares termination.
func (s *sim) step() bool {
	r := s.rnd.IntN(len(s.active))
	switch s.rnd.IntN(5) {
	case 0: // the rank's code spawns, or calls Wait
		if s.held[r] && s.budget > 0 && s.rnd.IntN(2) == 0 {
			s.active[r]++
			s.budget--
		} else {
			s.held[r] = false
		}
	case 1: // a task runs: spawns here, sends away, finishes
		if s.active[r] > 0 {
			s.spawn(r)
			s.active[r]--
		}
	case 2: // a task in flight arrives
		if n := len(s.inFlight); n > 0 {
			i := s.rnd.IntN(n)
			d := s.inFlight[i]
			s.inFlight[i] = s.inFlight[n-1]
			s.inFlight = s.inFlight[:n-1]
			s.recv[d]++
			s.active[d]++
		}
	default: // the wave reads its next rank
		return s.probeNext()
	}
	return false
}

func (s *sim) spawn(r int) {
	for range s.rnd.IntN(3) {
		if s.budget == 0 {
			return
		}
		s.budget--
		if d := s.rnd.IntN(len(s.active)); d != r {
			s.sent[r]++
			s.inFlight = append(s.inFlight, d)
		} else {
			s.active[r]++
		}
	}
}

func (s *sim) probeNext() bool {
	r := len(s.wave)
	s.wave = append(s.wave, report{idle: !s.held[r] && s.active[r] == 0, sent: s.sent[r], recv: s.recv[r]})
	if len(s.wave) < len(s.active) {
		return false
	}
	cur := s.wave
	s.wave = nil
	done := s.decide(s.prev, cur)
	s.prev = cur
	return done
}

// run plays the model until the rule declares termination, and reports
// whether it did so while tasks still existed (a false positive).
func (s *sim) run() (early bool, steps int) {
	for steps = 0; steps < 1_000_000; steps++ {
		if s.step() {
			return s.live(), steps
		}
	}
	return false, steps
}

// TestWaveModel plays many random executions of the model, with messages
// in flight and waves interleaved with the work, and checks that the
// four-counter rule never declares termination while a task exists or
// is in flight, and always declares it once all is done. The same model
// catches a one-wave rule, which is unsound: the test can fail.
func TestWaveModel(t *testing.T) {
	seeds := uint64(3000)
	if testing.Short() {
		seeds = 300
	}
	for seed := range seeds {
		s := newSim(seed, 2+int(seed%3), terminated)
		if early, steps := s.run(); early || steps == 1_000_000 {
			t.Fatalf("seed %d: four-counter rule: early %v after %d steps", seed, early, steps)
		}
	}
	oneWave := func(_, cur []report) bool { return terminated(cur, cur) }
	caught := false
	for seed := range uint64(3000) { // it stops at the first catch
		if early, _ := newSim(seed, 2+int(seed%3), oneWave).run(); early {
			caught = true
			break
		}
	}
	if !caught {
		t.Error("the model never caught the unsound one-wave rule: it explores too little")
	}
}

// TestHintWave: the master's hint wave exists once every other rank has
// hinted, carries their reports and the master's own, and malformed
// hints are errors.
func TestHintWave(t *testing.T) {
	j := newJob(t, 3, Config{}, nil)
	p, ctx := j.pools[0], testCtx(t)
	p.mu.Lock()
	g := p.groupLocked(p.next)
	p.mu.Unlock()
	id := binary.LittleEndian.AppendUint64(nil, g.id)
	hint := func(from int, r report) error {
		_, err := p.handleIdle(ctx, from, appendReport(append([]byte(nil), id...), r))
		return err
	}
	if w := p.hintWave(g); w != nil {
		t.Fatalf("hint wave before any hint: %v", w)
	}
	if err := hint(1, report{idle: true, sent: 2, recv: 1}); err != nil {
		t.Fatal(err)
	}
	if w := p.hintWave(g); w != nil {
		t.Fatalf("hint wave without rank 2's hint: %v", w)
	}
	if err := hint(2, report{idle: true, sent: 1, recv: 2}); err != nil {
		t.Fatal(err)
	}
	w := p.hintWave(g)
	want := []report{{}, {idle: true, sent: 2, recv: 1}, {idle: true, sent: 1, recv: 2}} // the master never made g: busy
	if len(w) != 3 || w[0] != want[0] || w[1] != want[1] || w[2] != want[2] {
		t.Errorf("hint wave %v; want %v", w, want)
	}
	for name, args := range map[string][]byte{"short": id[:3], "no report": id} {
		if _, err := p.handleIdle(ctx, 1, args); !errors.Is(err, ErrMalformed) {
			t.Errorf("hint %s: %v; want ErrMalformed", name, err)
		}
	}
	if _, err := p.handleIdle(ctx, 5, appendReport(id, report{})); !errors.Is(err, ErrMalformed) {
		t.Errorf("hint from rank 5 of 3: %v; want ErrMalformed", err)
	}
}
