package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/plexus-hpc/plexus/affinity"
)

func TestBenchCollJSON(t *testing.T) {
	if cpus, err := affinity.Allowed(); err != nil || len(cpus) < 2 || cpus[0] != 0 || cpus[1] != 1 {
		t.Skipf("needs CPUs 0 and 1: %v %v", cpus, err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"bench", "coll", "--quick", "--members", "2", "--json",
		"--model", "../../data/smelt/machinedb/intel_xeon_e5_v2_2x10"}, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res []struct {
		Bench, Impl string
		Members     int
		NsPerOp     float64 `json:"ns_per_op"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	seen := map[string]bool{}
	for _, r := range res {
		seen[r.Bench+"/"+r.Impl] = true
		if r.Members != 2 || r.NsPerOp <= 0 {
			t.Errorf("%+v", r)
		}
	}
	for _, k := range []string{"pingpong/atomic", "pingpong/ring", "pingpong/chan", "stream/ring", "stream/chan",
		"barrier/team-adaptive", "barrier/atomic", "barrier/cond", "barrier/chan", "barrier/waitgroup",
		"barrier/dissemination", "bcast/team-best", "bcast/chan", "reduce/team-binary", "reduce/chan"} {
		if !seen[k] {
			t.Errorf("no %s result", k)
		}
	}
}

func TestBenchCollBadFlags(t *testing.T) {
	var out, errb bytes.Buffer
	for _, args := range [][]string{
		{"bench", "coll", "--members", "x", "--model", "../../data/smelt/machinedb/intel_xeon_e5_v2_2x10"},
		{"bench", "coll", "--members", "99", "--model", "../../data/smelt/machinedb/intel_xeon_e5_v2_2x10"},
	} {
		if code := run(args, &out, &errb); code != exitUsage {
			t.Errorf("%v: exit %d", args, code)
		}
	}
}
