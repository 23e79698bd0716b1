package guard

import (
	"fmt"
	"testing"
)

// admitted admits a connection from src and records whether it was
// evicted.
type admitted struct {
	t       *Ticket
	evicted bool
}

func admit(g *Gate, src string) *admitted {
	a := &admitted{}
	a.t = g.Admit(src, func() { a.evicted = true })
	return a
}

func TestGatePerSourceEvictsItsOldest(t *testing.T) {
	g := NewGate(10, 2)
	a1, a2, b := admit(g, "a"), admit(g, "a"), admit(g, "b")
	a3 := admit(g, "a")
	if !a1.evicted || a2.evicted || a3.evicted || b.evicted {
		t.Fatalf("evicted a1 %v a2 %v a3 %v b %v; want only a1", a1.evicted, a2.evicted, a3.evicted, b.evicted)
	}
	if a1.t.Release() {
		t.Error("an evicted ticket's Release reported it held")
	}
	if !a3.t.Release() || a3.t.Release() {
		t.Error("Release must report true once, then false")
	}
	if g.Len() != 2 {
		t.Errorf("Len %d, want 2", g.Len())
	}
}

func TestGateTotalEvictsTheHeaviestSource(t *testing.T) {
	g := NewGate(4, 3)
	flood := []*admitted{admit(g, "x"), admit(g, "x"), admit(g, "x")}
	rank := admit(g, "r")
	late := admit(g, "y")
	if !flood[0].evicted || flood[1].evicted || rank.evicted || late.evicted {
		t.Fatalf("evicted %v %v rank %v late %v; want the flood's oldest only", flood[0].evicted, flood[1].evicted, rank.evicted, late.evicted)
	}
	if g.Len() != 4 {
		t.Errorf("Len %d, want 4", g.Len())
	}
}

// TestGateBounds admits many connections from a few sources and checks
// the bounds after each, against a count of the live tickets.
func TestGateBounds(t *testing.T) {
	g := NewGate(16, 5)
	var all []*admitted
	for i := range 500 {
		all = append(all, admit(g, fmt.Sprint(i%7)))
		if i%3 == 0 {
			all[i/2].t.Release()
		}
		live := map[string]int{}
		n := 0
		for _, a := range all {
			if !a.evicted && a.t.held {
				live[a.t.src]++
				n++
			}
		}
		if n != g.Len() || n > 16 {
			t.Fatalf("after %d: %d live, Len %d, bound 16", i, n, g.Len())
		}
		for src, k := range live {
			if k > 5 {
				t.Fatalf("after %d: source %s holds %d, bound 5", i, src, k)
			}
		}
	}
}
