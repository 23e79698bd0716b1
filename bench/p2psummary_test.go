package bench

import (
	"strings"
	"testing"
)

// TestP2PSummary: the summary has the side-by-side rows but neither the
// paired ratio nor the targets, which one run does not judge.
func TestP2PSummary(t *testing.T) {
	res := append(pair("latency", 2, 8, 1, 1.25), pair("bandwidth", 2, 1<<20, 700, 1000)...)
	for i := range res {
		res[i].Transport, res[i].Paired = "shm", 0.8
	}
	var buf strings.Builder
	if err := WriteP2PSummary(&buf, res); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "latency      2        8          1.00     1.25             0.8\n") ||
		strings.Contains(out, "paired") || strings.Contains(out, "target:") {
		t.Errorf("summary:\n%s", out)
	}
}

func TestPeersMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if err := PeersMissing(); err == nil || !strings.Contains(err.Error(), "mpirun not found") {
		t.Errorf("no mpirun on the PATH: %v", err)
	}
}
