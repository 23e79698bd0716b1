package bench

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParsePeerOutput(t *testing.T) {
	lat := PeerLine{Bench: "latency", Ranks: 2, Size: 1, Iters: 1000, Value: 6.9}
	for _, tc := range []struct {
		name, out string
		want      []PeerLine
		err       error
	}{
		{"plexus run prefixes", "[0] {\"bench\":\"latency\",\"ranks\":2,\"size\":1,\"iters\":1000,\"value\":6.9}\n[1] done\n", []PeerLine{lat}, nil},
		{"mpirun with chatter", "--------\nWARNING: something\n{\"bench\":\"latency\",\"ranks\":2,\"size\":1,\"iters\":1000,\"value\":6.9}\n", []PeerLine{lat}, nil},
		{"C printf %g", `{"bench":"msgrate","ranks":2,"size":8,"iters":200,"value":1.67329e+05}`,
			[]PeerLine{{Bench: "msgrate", Ranks: 2, Size: 8, Iters: 200, Value: 167329}}, nil},
		{"crlf and spaces", "  [0]  {\"bench\":\"barrier\",\"ranks\":4,\"size\":0,\"iters\":5,\"value\":118.2}\r\n",
			[]PeerLine{{Bench: "barrier", Ranks: 4, Iters: 5, Value: 118.2}}, nil},
		{"nothing", "hello\n[2] world\n", nil, nil},
		{"truncated", `{"bench":"latency","ranks":2,`, nil, ErrPeerOutput},
		{"no bench", `{"ranks":2}`, nil, ErrPeerOutput},
		{"wrong type", `{"bench":"latency","size":"big"}`, nil, ErrPeerOutput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePeerOutput(strings.NewReader(tc.out))
			if !errors.Is(err, tc.err) || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, %v; want %+v, %v", got, err, tc.want, tc.err)
			}
		})
	}
}

func TestScaledIters(t *testing.T) {
	for _, tc := range []struct{ base, size, want int }{
		{1000, 1, 1000}, {1000, 8192, 1000}, {1000, 16384, 500}, {1000, 1 << 20, 7}, {1000, 4 << 20, 4}, {2, 1, 4},
	} {
		if got := ScaledIters(tc.base, tc.size); got != tc.want {
			t.Errorf("ScaledIters(%d, %d) = %d, want %d", tc.base, tc.size, got, tc.want)
		}
	}
}

func TestMediansAndTargets(t *testing.T) {
	var all []P2PResult
	for _, v := range []float64{30, 10, 20} {
		all = append(all,
			P2PResult{Bench: "latency", Impl: "plexus", Ranks: 2, Size: 1, Value: v},
			P2PResult{Bench: "latency", Impl: "openmpi", Ranks: 2, Size: 1, Value: 2 * v},
			P2PResult{Bench: "msgrate", Impl: "plexus", Ranks: 2, Size: 8, Value: v},
			P2PResult{Bench: "msgrate", Impl: "openmpi", Ranks: 2, Size: 8, Value: v})
	}
	res := medians(all)
	if len(res) != 4 || res[0].Value != 20 || res[1].Value != 40 || res[0].Runs != 3 {
		t.Fatalf("medians: %+v", res)
	}
	tg := P2PTargets("tcp", res)
	if len(tg) != 2 || !tg[0].Met() || tg[0].Ratio != 0.5 || tg[1].Met() {
		t.Errorf("targets: %+v", tg)
	}
}

func TestP2PConfigValidate(t *testing.T) {
	for _, c := range []P2PConfig{
		{Transport: "carrier-pigeon"}, {Ranks: []int{1}}, {Sizes: []int{-1}}, {Runs: -1},
		{NoPGO: true, Rank: []string{"plexus", "bench", "p2p", "rank"}},
	} {
		if err := c.Validate(); !errors.Is(err, ErrP2PConfig) {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if err := (P2PConfig{}).Validate(); err != nil {
		t.Error(err)
	}
}
