package kvbench

import "testing"

func TestMedian(t *testing.T) {
	rows := []Row{{Bench: "kv", OpsPerS: 3, P50us: 9, P99us: 1}, {OpsPerS: 1, P50us: 7, P99us: 5}, {OpsPerS: 2, P50us: 8, P99us: 3}}
	got := Median(rows)
	if got.Bench != "kv" || got.OpsPerS != 2 || got.P50us != 8 || got.P99us != 3 {
		t.Errorf("Median = %+v, want kv, 2 ops/s, p50 8, p99 3", got)
	}
}

func TestPlots(t *testing.T) {
	rows := []Row{{Bench: "kv", Impl: "tree", Replicas: 3, Clients: 1, OpsPerS: 1}, {Bench: "kv", Impl: "tree", Replicas: 3, Clients: 4, OpsPerS: 4},
		{Bench: "kv", Impl: "tree", Replicas: 2, Clients: 4, OpsPerS: 5}, {Bench: "kv", Impl: "sequential", Replicas: 2, Clients: 4, OpsPerS: 6},
		{Bench: "agree", Impl: "tree", Replicas: 2, Clients: 4, OpsPerS: 7}}
	thru, _ := Plots(rows, "kv")
	if len(thru.Series) != 2 || thru.Series[1].Name != "tree" || len(thru.Series[1].X) != 2 ||
		thru.Series[1].X[0] != 2 || thru.Series[1].Y[1] != 4 {
		t.Errorf("throughput plot %+v: want sequential and tree, tree at 2 and 3 replicas with the 4-client rows", thru.Series)
	}
}
