package main

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/plexus-hpc/plexus/bench"
)

// TestBenchGasJSON runs bench gas --quick and checks its rows: the
// openmpi row only where Open MPI is installed.
func TestBenchGasJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs jobs")
	}
	useBuiltRank(t)
	var out, errb bytes.Buffer
	code := run([]string{"bench", "gas", "--quick", "--json"}, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res []bench.GasResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	want := []string{"am/aggregated/2", "am/direct/2", "delegate_latency/plexus/2", "gups/plexus/1", "gups/plexus/2"}
	if bench.PeersMissing() == nil {
		want = []string{"am/aggregated/2", "am/direct/2", "am/openmpi/2", "delegate_latency/plexus/2",
			"gups/plexus/1", "gups/openmpi/1", "gups/plexus/2", "gups/openmpi/2"}
	}
	if len(res) != len(want) {
		t.Fatalf("%d rows, want %d\n%s", len(res), len(want), out.String())
	}
	for i, r := range res {
		if got := r.Bench + "/" + r.Impl + "/" + strconv.Itoa(r.Ranks); got != want[i] {
			t.Errorf("row %d: %s, want %s", i, got, want[i])
		}
		if r.Value <= 0 || r.Unit == "" || r.Size <= 0 || r.Transport == "" {
			t.Errorf("%+v", r)
		}
	}
}
