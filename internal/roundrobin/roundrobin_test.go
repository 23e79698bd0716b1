package roundrobin

import "testing"

// Every pair meets once, nobody twice in a round, partners agree, and
// Pairs lists exactly Partner's meetings.
func TestSchedule(t *testing.T) {
	for n := 0; n <= 17; n++ {
		met := map[[2]int]int{}
		pairs := Pairs(n)
		if len(pairs) != Rounds(n) {
			t.Fatalf("n=%d: %d rounds listed, Rounds says %d", n, len(pairs), Rounds(n))
		}
		for r, round := range pairs {
			busy := map[int]bool{}
			for _, p := range round {
				if p[0] >= p[1] || busy[p[0]] || busy[p[1]] {
					t.Fatalf("n=%d round %d: bad or repeated pair %v", n, r, p)
				}
				busy[p[0]], busy[p[1]] = true, true
				if Partner(p[0], r, n) != p[1] || Partner(p[1], r, n) != p[0] {
					t.Fatalf("n=%d round %d: %v disagree", n, r, p)
				}
				met[p]++
			}
			for a := range n {
				if !busy[a] && Partner(a, r, n) != -1 {
					t.Fatalf("n=%d round %d: %d unlisted but has partner %d", n, r, a, Partner(a, r, n))
				}
			}
		}
		if want := n * (n - 1) / 2; len(met) != want {
			t.Fatalf("n=%d: %d pairs met, want %d", n, len(met), want)
		}
		for p, k := range met {
			if k != 1 {
				t.Fatalf("n=%d: %v met %d times", n, p, k)
			}
		}
	}
}
