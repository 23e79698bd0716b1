package kvbench

import (
	"context"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/agree/group"
)

// TestRunStatsFill fills a row from two readings of three replicas:
// busy times and parts per decision, the busiest replica, collections
// per second and allocations per decision.
func TestRunStatsFill(t *testing.T) {
	a := runStats{loads: make([]group.Load, 3), profiles: make([]group.Profile, 3), numGC: 2, mallocs: 100}
	b := runStats{loads: []group.Load{{Busy: 300, Sleeps: 4}, {Busy: 500}, {Busy: 900, Sleeps: 2}},
		profiles: []group.Profile{{Sweeps: 4, Send: 200}, {Sweeps: 5, Broadcast: 400}, {}}, numGC: 6, mallocs: 1100}
	var row Row
	a.fill(&row, b, 100, 2*time.Second)
	if row.LeaderNs != 3 || row.AcceptorNs != 5 || row.BusiestNs != 9 || row.Busiest != 2 {
		t.Errorf("busy: leader %v, acceptor %v, busiest %v (replica %d); want 3, 5, 9 (replica 2)",
			row.LeaderNs, row.AcceptorNs, row.BusiestNs, row.Busiest)
	}
	if row.LeaderParts["send"] != 2 || row.AcceptorParts["broadcast"] != 4 || len(row.AcceptorParts) != len(group.Profile{}.Parts()) {
		t.Errorf("parts: leader %v, acceptor %v", row.LeaderParts, row.AcceptorParts)
	}
	if row.LeaderSweeps != 0.04 || row.AcceptorSweeps != 0.05 {
		t.Errorf("sweeps per decision: leader %v, acceptor %v; want 0.04, 0.05", row.LeaderSweeps, row.AcceptorSweeps)
	}
	if row.SleepsPerS != 3 {
		t.Errorf("%v sleeps/s, want 3 (6 in 2s)", row.SleepsPerS)
	}
	if row.GCPerS != 2 || row.AllocsPerOp != 10 {
		t.Errorf("%v collections/s, %v allocations/op; want 2 and 10", row.GCPerS, row.AllocsPerOp)
	}
	var none Row
	a.fill(&none, runStats{loads: make([]group.Load, 3), profiles: make([]group.Profile, 3)}, 100, time.Second)
	if none.AcceptorParts != nil || none.LeaderParts != nil {
		t.Errorf("unprofiled replicas have parts: %v, %v", none.AcceptorParts, none.LeaderParts)
	}
}

func TestMedianParts(t *testing.T) {
	rows := []Row{{AcceptorParts: map[string]float64{"send": 3, "links": 1}}, {AcceptorParts: map[string]float64{"send": 1}},
		{AcceptorParts: map[string]float64{"send": 2, "links": 5}}, {}}
	got := medianParts(rows, func(r Row) map[string]float64 { return r.AcceptorParts })
	if len(got) != 2 || got["send"] != 2 || got["links"] != 5 {
		t.Errorf("medianParts = %v, want send 2, links 5 (the upper of 1 and 5)", got)
	}
	if medianParts(rows[3:], func(r Row) map[string]float64 { return r.AcceptorParts }) != nil {
		t.Error("rows without parts have median parts")
	}
}

// TestAgreeAtLeader: with AtLeader every client proposes at replica 0,
// which alone answers, and the run's row says so; by default client i
// goes to replica i mod R.
func TestAgreeAtLeader(t *testing.T) {
	cfg := AgreeConfig{Replicas: 3, Clients: 4, Mode: group.Tree, Duration: 100 * time.Millisecond}
	if cfg.entry(4) != 1 {
		t.Errorf("client 4 of 3 replicas proposes at %d, want 1", cfg.entry(4))
	}
	cfg.AtLeader = true
	for c := range 4 {
		if cfg.entry(c) != 0 {
			t.Errorf("at the leader, client %d proposes at replica %d", c, cfg.entry(c))
		}
	}
	for id := range 3 {
		if _, _, ok := cfg.answerOf(id); ok != (id == 0) {
			t.Errorf("at the leader, replica %d answers: %v", id, ok)
		}
	}
	r, err := Agree(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.ClientsAt != "leader" || r.OpsPerS <= 0 {
		t.Errorf("row %+v: want clients_at leader and some throughput", r)
	}
}
