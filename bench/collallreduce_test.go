package bench

import (
	"context"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/tree"
)

// The allreduce cases run every algorithm and the model's choice, each
// with the simulator's prediction of the algorithm it runs.
func TestCollAllreduce(t *testing.T) {
	cfg := Config{Model: localModel(t), CPUs: cpus(t), Quick: true, Target: 2 * time.Millisecond,
		Topologies: []tree.Topology{tree.Adaptive}}
	res, err := Coll(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, impl := range []string{"team-auto", "team-trees", "team-doubling", "team-rabenseifner"} {
		r, ok := Find(res, "allreduce", impl, 2)
		if !ok {
			t.Errorf("no result for allreduce/%s", impl)
			continue
		}
		if r.NsPerOp <= 0 || r.Ops < 64 || r.PredictedNs <= 0 {
			t.Errorf("allreduce/%s: %v ns over %d ops, predicted %v", impl, r.NsPerOp, r.Ops, r.PredictedNs)
		}
	}
}
