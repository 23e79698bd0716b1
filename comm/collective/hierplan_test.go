package collective

import (
	"fmt"
	"testing"
)

// runDoubling plays every leader's doublingSteps among hosts leaders on
// symbolic values ("h0", "h1", ...; a fold is "(a∘b)"), with sends queued
// per ordered pair and receives taking the oldest, and returns what each
// leader ends with; it fails when the steps stop with a leader unfinished
// (a receive that nobody's send matches).
func runDoubling(t *testing.T, hosts int) []string {
	t.Helper()
	acc := make([]string, hosts)
	steps := make([][]leaderStep, hosts)
	next := make([]int, hosts)
	sent := make([]bool, hosts) // the current step's send is done
	queue := map[[2]int][]string{}
	for h := range hosts {
		acc[h], steps[h] = fmt.Sprintf("h%d", h), doublingSteps(h, hosts)
	}
	for progress := true; progress; {
		progress = false
		for h := range hosts {
			for next[h] < len(steps[h]) {
				s := steps[h][next[h]]
				if s.send && !sent[h] {
					queue[[2]int{h, s.peer}] = append(queue[[2]int{h, s.peer}], acc[h])
					sent[h], progress = true, true
				}
				if s.recv {
					q := queue[[2]int{s.peer, h}]
					if len(q) == 0 {
						break
					}
					in := q[0]
					queue[[2]int{s.peer, h}] = q[1:]
					switch s.fold {
					case foldNone:
						acc[h] = in
					case foldAfter:
						acc[h] = "(" + acc[h] + "∘" + in + ")"
					case foldBefore:
						acc[h] = "(" + in + "∘" + acc[h] + ")"
					}
				}
				next[h], sent[h], progress = next[h]+1, false, true
			}
		}
	}
	for h := range hosts {
		if next[h] < len(steps[h]) {
			t.Fatalf("%d hosts: leader %d stuck at step %d of %v", hosts, h, next[h], steps[h])
		}
	}
	for k, q := range queue {
		if len(q) > 0 {
			t.Fatalf("%d hosts: %d messages from %d to %d never received", hosts, len(q), k[0], k[1])
		}
	}
	return acc
}

// TestDoublingSteps: every leader ends with the one bracketing the
// schedule documents, every host folded in exactly once, and no message
// is left over, for 1 to 12 hosts.
func TestDoublingSteps(t *testing.T) {
	want := map[int]string{
		1: "h0",
		2: "(h0∘h1)",
		3: "((h0∘h2)∘h1)",
		4: "((h0∘h1)∘(h2∘h3))",
		5: "(((h0∘h4)∘h1)∘(h2∘h3))",
	}
	for hosts := 1; hosts <= 12; hosts++ {
		got := runDoubling(t, hosts)
		for h := range hosts {
			if got[h] != got[0] {
				t.Errorf("%d hosts: leader %d has %s, leader 0 %s", hosts, h, got[h], got[0])
			}
		}
		for h := range hosts {
			if n := countOf(got[0], fmt.Sprintf("h%d)", h)) + countOf(got[0], fmt.Sprintf("h%d∘", h)) + boolInt(got[0] == fmt.Sprintf("h%d", h)); n != 1 {
				t.Errorf("%d hosts: host %d folded %d times into %s", hosts, h, n, got[0])
			}
		}
		if w, ok := want[hosts]; ok && got[0] != w {
			t.Errorf("%d hosts: bracketing %s, want %s", hosts, got[0], w)
		}
	}
}

func countOf(s, sub string) int {
	n := 0
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			n++
		}
	}
	return n
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestBcastTree: from every root among 1 to 12 hosts, each other host has
// one parent, which lists it among its children, every host is reached
// from the root, and no path is longer than ceil(log2 hosts) hops.
func TestBcastTree(t *testing.T) {
	for hosts := 1; hosts <= 12; hosts++ {
		depth := 0
		for 1<<depth < hosts {
			depth++
		}
		for root := range hosts {
			hops := map[int]int{root: 0}
			for todo := []int{root}; len(todo) > 0; todo = todo[1:] {
				for _, kid := range bcastChildren(todo[0], root, hosts) {
					if _, seen := hops[kid]; seen {
						t.Fatalf("%d hosts, root %d: host %d reached twice", hosts, root, kid)
					}
					if p := bcastParent(kid, root, hosts); p != todo[0] {
						t.Errorf("%d hosts, root %d: host %d is %d's child, its parent %d", hosts, root, kid, todo[0], p)
					}
					hops[kid] = hops[todo[0]] + 1
					todo = append(todo, kid)
				}
			}
			if len(hops) != hosts || bcastParent(root, root, hosts) != -1 {
				t.Errorf("%d hosts, root %d: reached %d hosts, root's parent %d", hosts, root, len(hops), bcastParent(root, root, hosts))
			}
			for h, d := range hops {
				if d > depth {
					t.Errorf("%d hosts, root %d: host %d %d hops away, want ≤ %d", hosts, root, h, d, depth)
				}
			}
		}
	}
}
