package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/affinity"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/topo/sysfs"
	"github.com/plexus-hpc/plexus/tree"
)

func localModel(tb testing.TB) *topo.Model {
	tb.Helper()
	m, err := sysfs.Local()
	if err != nil {
		tb.Skipf("no sysfs: %v", err)
	}
	if err := topo.Estimate(m, topo.DefaultEstimate()); err != nil {
		tb.Fatal(err)
	}
	return m
}

func cpus(tb testing.TB) []int {
	c, err := affinity.Allowed()
	if err != nil || len(c) < 2 {
		tb.Skipf("need 2 CPUs: %v %v", c, err)
	}
	return c[:2]
}

func TestCollQuick(t *testing.T) {
	cfg := Config{Model: localModel(t), CPUs: cpus(t), Quick: true, Target: 2 * time.Millisecond,
		Topologies: []tree.Topology{tree.Adaptive, tree.Binary}}
	res, err := Coll(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"pingpong": {"atomic", "ring", "chan", "chan-unpinned"},
		"stream":   {"ring", "chan", "chan-unpinned"},
		"barrier": {"team-adaptive", "team-binary", "dissemination", "atomic", "cond", "cond-unpinned",
			"chan", "chan-unpinned", "waitgroup", "waitgroup-unpinned"},
		"bcast":  {"team-adaptive", "team-binary", "chan", "chan-unpinned"},
		"reduce": {"team-adaptive", "team-binary", "chan", "chan-unpinned"},
	}
	for b, impls := range want {
		for _, impl := range impls {
			r, ok := Find(res, b, impl, 2)
			if !ok {
				t.Errorf("no result for %s/%s", b, impl)
				continue
			}
			if r.NsPerOp <= 0 || r.Ops < 64 {
				t.Errorf("%s/%s: %v ns over %d ops", b, impl, r.NsPerOp, r.Ops)
			}
			if (impl[:4] == "team") != (r.PredictedNs > 0) {
				t.Errorf("%s/%s: prediction %v", b, impl, r.PredictedNs)
			}
		}
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, res); err != nil {
		t.Fatal(err)
	}
	var back []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || len(back) != len(res) {
		t.Fatalf("JSON: %v, %d of %d", err, len(back), len(res))
	}
	for _, k := range []string{"bench", "impl", "members", "ns_per_op"} {
		if _, ok := back[0][k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	m := localModel(t)
	for name, c := range map[string]Config{
		"no model":   {CPUs: []int{0, 1}},
		"one cpu":    {Model: m, CPUs: []int{0}},
		"too many":   {Model: m, CPUs: []int{0, 1}, Members: []int{3}},
		"one member": {Model: m, CPUs: []int{0, 1}, Members: []int{1}},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Coll(ctx, Config{Model: m, CPUs: cpus(t)}, nil); err == nil {
		t.Error("cancelled context: no error")
	}
}
