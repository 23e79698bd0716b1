package measure

import "testing"

// TestTournament checks, for n = 2..17, that every unordered pair plays
// exactly once, that no CPU plays twice in a round, and the number of
// rounds: n-1 for even n, n for odd (one CPU rests each round).
func TestTournament(t *testing.T) {
	for n := 2; n <= 17; n++ {
		rounds := tournament(n)
		want := n - 1
		if n%2 == 1 {
			want = n
		}
		if len(rounds) != want {
			t.Errorf("n=%d: %d rounds, want %d", n, len(rounds), want)
		}
		played := map[[2]int]int{}
		for r, round := range rounds {
			busy := map[int]bool{}
			for _, p := range round {
				a, b := p[0], p[1]
				if a < 0 || b >= n || a >= b {
					t.Fatalf("n=%d round %d: pair %v is not two CPUs a < b below %d", n, r, p, n)
				}
				if busy[a] || busy[b] {
					t.Fatalf("n=%d round %d: %v plays twice (round %v)", n, r, p, round)
				}
				busy[a], busy[b] = true, true
				played[p]++
			}
			if len(busy) < n-1 {
				t.Errorf("n=%d round %d: only %d CPUs busy", n, r, len(busy))
			}
		}
		for a := range n {
			for b := a + 1; b < n; b++ {
				if c := played[[2]int{a, b}]; c != 1 {
					t.Errorf("n=%d: pair {%d, %d} plays %d times", n, a, b, c)
				}
			}
		}
	}
	if r := tournament(1); r != nil {
		t.Errorf("tournament(1) = %v, want no rounds", r)
	}
}
