package rail

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestSplitOddSlowdowns: a NaN, negative or infinite slowdown, as a
// measured ratio can come out, gives a split that covers the message,
// not a panic.
func TestSplitOddSlowdowns(t *testing.T) {
	p, q := lin(t, "a", 10*time.Microsecond, 1e9), lin(t, "b", 10*time.Microsecond, 1e9)
	for _, s := range []float64{math.NaN(), -3, math.Inf(1), math.Inf(-1)} {
		chunks := Split([]Rail{{Profile: p, Slowdown: s}, {Profile: q}}, 1<<20, Config{})
		total := 0
		for _, c := range chunks {
			if c.Len < 0 {
				t.Errorf("slowdown %v: chunk %+v", s, c)
			}
			total += c.Len
		}
		if total != 1<<20 {
			t.Errorf("slowdown %v: chunks %+v cover %d bytes, want %d", s, chunks, total, 1<<20)
		}
	}
}

// TestNegativeSizesPanic: Split and Plan name a negative size rather
// than returning chunks of negative length.
func TestNegativeSizesPanic(t *testing.T) {
	rails := []Rail{{Profile: lin(t, "a", time.Microsecond, 1e9)}}
	for name, f := range map[string]func(){
		"Split": func() { Split(rails, -5, Config{}) },
		"Plan":  func() { Plan(rails, []int{10, -5, 0}, Config{}) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "-5") {
					t.Errorf("%s of -5 bytes: recovered %v, want a panic naming -5", name, r)
				}
			}()
			f()
		}()
	}
}
