package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestMTIters(t *testing.T) {
	for _, tc := range []struct{ base, g, want int }{
		{1000, 1, 1000}, {1000, 10, 100}, {1000, 3, 334}, {1000, 100, 10}, {1000, 1000, 2},
		{1000, 100000, 2}, {200, 100, 2}, {20, 1, 20}, {20, 10, 2}, {1, 1, 2},
	} {
		if got := MTIters(tc.base, tc.g); got != tc.want {
			t.Errorf("MTIters(%d, %d) = %d, want %d", tc.base, tc.g, got, tc.want)
		}
	}
}

func TestMTWindow(t *testing.T) {
	for _, tc := range []struct{ window, g, want int }{
		{64, 1, 64}, {64, 1000, 64}, {64, 1024, 64}, {64, 2000, 32}, {64, 10000, 6}, {64, 100000, 1},
		{64, 1000000, 1}, {16, 10, 16},
	} {
		if got := MTWindow(tc.window, tc.g); got != tc.want {
			t.Errorf("MTWindow(%d, %d) = %d, want %d", tc.window, tc.g, got, tc.want)
		}
	}
}

// TestMTWork checks that the largest sweep stays bounded: at most a few
// hundred thousand timed messages per case, whatever the count.
func TestMTWork(t *testing.T) {
	for _, g := range []int{1, 10, 100, 1000, 10000, 100000} {
		lat := 2 * g * MTIters(1000, g)
		rate := g * MTIters(200, g) * MTWindow(64, g)
		if lat > 400_000 || rate > 200_000 || lat < 2000 || rate < 12_800 {
			t.Errorf("g=%d: %d latency messages, %d msgrate messages", g, lat, rate)
		}
	}
}

func TestPeerPlanMT(t *testing.T) {
	progs := func(c P2PConfig) (names []string, plexusOnly []bool, args [][]string) {
		for _, r := range peerPlan(c.withDefaults()) {
			names, plexusOnly, args = append(names, r.prog), append(plexusOnly, r.plexusOnly), append(args, r.args)
		}
		return
	}
	names, _, _ := progs(P2PConfig{Ranks: []int{2, 4}})
	if want := []string{"latency", "bw", "msgrate", "coll", "coll"}; !reflect.DeepEqual(names, want) {
		t.Errorf("default plan %v, want %v", names, want)
	}
	names, only, args := progs(P2PConfig{Ranks: []int{4, 2}, Goroutines: []int{1, 10}, Cases: []string{"latency_mt", "msgrate_mt"}, Quick: true})
	if !reflect.DeepEqual(names, []string{"latency_mt", "msgrate_mt"}) || !reflect.DeepEqual(only, []bool{true, true}) {
		t.Fatalf("mt plan %v %v", names, only)
	}
	if want := []string{"-n", "20", "-w", "16", "-g", "1,10"}; !reflect.DeepEqual(args[0], want) {
		t.Errorf("latency_mt args %v, want %v", args[0], want)
	}
	names, only, _ = progs(P2PConfig{Ranks: []int{2}, Goroutines: []int{5}, Cases: []string{"msgrate", "msgrate_mt"}})
	if !reflect.DeepEqual(names, []string{"msgrate", "msgrate_mt"}) || !reflect.DeepEqual(only, []bool{false, true}) {
		t.Errorf("msgrate plan %v %v", names, only)
	}
}

func TestP2PConfigValidateMT(t *testing.T) {
	for _, c := range []P2PConfig{
		{Goroutines: []int{0}}, {Goroutines: []int{MaxGoroutines + 1}}, {Cases: []string{"pingpong"}},
		{Cases: []string{"latency_mt"}},
	} {
		if err := c.Validate(); !errors.Is(err, ErrP2PConfig) {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if err := (P2PConfig{Goroutines: []int{1, MaxGoroutines}, Cases: []string{"coll", "msgrate_mt"}}).Validate(); err != nil {
		t.Error(err)
	}
}

func TestMediansByGoroutines(t *testing.T) {
	var all []P2PResult
	for _, v := range []float64{3, 1, 2} {
		for _, g := range []int{1, 10} {
			all = append(all, P2PResult{Bench: "latency_mt", Impl: "plexus", Ranks: 2, Size: 8, Goroutines: g, Value: v * float64(g)})
		}
	}
	res := medians(all)
	if len(res) != 2 || res[0].Value != 2 || res[1].Value != 20 || res[1].Goroutines != 10 || res[1].Runs != 3 {
		t.Errorf("medians: %+v", res)
	}
}

func TestToResultsGoroutines(t *testing.T) {
	res := toResults([]PeerLine{
		{Bench: "latency", Ranks: 2, Size: 8, Iters: 10, Value: 5},
		{Bench: "msgrate_mt", Ranks: 2, Size: 8, Goroutines: 100, Iters: 2, Value: 1e5},
	}, "plexus", "shm")
	if res[0].Goroutines != 1 || res[1].Goroutines != 100 || res[1].Unit != "msgs/s" || res[1].Transport != "shm" {
		t.Errorf("%+v", res)
	}
}

func TestWriteP2PTableGoroutines(t *testing.T) {
	single := []P2PResult{{Bench: "latency", Impl: "plexus", Transport: "tcp", Ranks: 2, Size: 8, Value: 7, Unit: "µs", Goroutines: 1}}
	var b bytes.Buffer
	if err := WriteP2PTable(&b, single); err != nil || strings.Contains(b.String(), "goroutines") {
		t.Errorf("no sweep, %v:\n%s", err, b.String())
	}
	mt := append(single,
		P2PResult{Bench: "latency_mt", Impl: "plexus", Transport: "tcp", Ranks: 2, Size: 8, Value: 70, Unit: "µs", Goroutines: 10},
		P2PResult{Bench: "latency_mt", Impl: "plexus", Transport: "tcp", Ranks: 2, Size: 8, Value: 900, Unit: "µs", Goroutines: 100})
	b.Reset()
	if err := WriteP2PTable(&b, mt); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 || !slices.Equal(strings.Fields(lines[0])[:3], []string{"bench", "ranks", "goroutines"}) {
		t.Fatalf("table:\n%s", b.String())
	}
	if f := strings.Fields(lines[3]); f[0] != "latency_mt" || f[2] != "100" || f[5] != "900" {
		t.Errorf("row %q", lines[3])
	}
	b.Reset()
	if err := WriteP2PJSON(&b, mt); err != nil {
		t.Fatal(err)
	}
	var back []P2PResult
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || !reflect.DeepEqual(back, mt) || !strings.Contains(b.String(), `"goroutines": 100`) {
		t.Errorf("JSON round trip %v:\n%s", err, b.String())
	}
}

func TestParsePeerOutputGoroutines(t *testing.T) {
	got, err := ParsePeerOutput(strings.NewReader(`[0] {"bench":"latency_mt","ranks":2,"size":8,"goroutines":1000,"iters":2,"value":2124.8}`))
	want := []PeerLine{{Bench: "latency_mt", Ranks: 2, Size: 8, Goroutines: 1000, Iters: 2, Value: 2124.8}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, %v", got, err)
	}
}

// TestWriteP2PTableSerialized: the table says when Plexus ran serialized
// worlds, and only then; toResults carries the mark over.
func TestWriteP2PTableSerialized(t *testing.T) {
	res := toResults([]PeerLine{{Bench: "latency", Ranks: 2, Size: 1, Iters: 10, Value: 0.2, Serialized: true}}, "plexus", "shm")
	var b bytes.Buffer
	if err := WriteP2PTable(&b, res); err != nil || !strings.Contains(b.String(), "plexus: serialized worlds") {
		t.Errorf("serialized, %v:\n%s", err, b.String())
	}
	res[0].Serialized = false
	b.Reset()
	if err := WriteP2PTable(&b, res); err != nil || strings.Contains(b.String(), "serialized") {
		t.Errorf("default worlds, %v:\n%s", err, b.String())
	}
	res[0].PGO = true
	b.Reset()
	if err := WriteP2PTable(&b, res); err != nil || !strings.Contains(b.String(), "profile-guided") {
		t.Errorf("PGO, %v:\n%s", err, b.String())
	}
}
