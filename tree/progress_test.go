package tree

import (
	"reflect"
	"testing"
)

// TestBestProgress checks that Build reports a Best search's progress
// rising to done == total, and that reporting leaves the tree unchanged.
func TestBestProgress(t *testing.T) {
	m := model2x10(t)
	for _, cpus := range [][]int{nil, {0, 1, 2, 10, 11}} {
		var calls [][2]int
		spec := Spec{Topology: Best, CPUs: cpus, Root: AutoRoot,
			Progress: func(done, total int) { calls = append(calls, [2]int{done, total}) }}
		got, err := Build(m, spec)
		if err != nil {
			t.Fatal(err)
		}
		if len(calls) == 0 {
			t.Fatalf("cpus %v: progress never called", cpus)
		}
		for i, c := range calls {
			if c[0] > c[1] || c[1] != calls[0][1] || i > 0 && c[0] < calls[i-1][0] {
				t.Fatalf("cpus %v: call %d = %v after %v", cpus, i, c, calls[max(i-1, 0)])
			}
		}
		if last := calls[len(calls)-1]; last[0] != last[1] {
			t.Errorf("cpus %v: last call %v, want done == total", cpus, last)
		}
		spec.Progress = nil
		want, _ := Build(m, spec)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("cpus %v: tree built with progress differs", cpus)
		}
	}
}
