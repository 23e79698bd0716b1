package main

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestBenchP2PJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a job")
	}
	for _, transport := range []string{"tcp", "shm"} {
		t.Run("transport="+transport, func(t *testing.T) { testBenchP2PJSON(t, transport) })
	}
}

func testBenchP2PJSON(t *testing.T, transport string) {
	var out, errb bytes.Buffer
	code := run([]string{"bench", "p2p", "--quick", "--transport", transport, "--ranks", "2", "--sizes", "8", "--json"}, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res []struct {
		Bench, Impl, Transport, Unit string
		Ranks, Size                  int
		Value                        float64
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res) != 6 {
		t.Fatalf("%v, %d results\n%s", err, len(res), out.String())
	}
	for _, r := range res {
		if r.Impl != "plexus" || r.Transport != transport || r.Ranks != 2 || r.Value <= 0 || r.Unit == "" {
			t.Errorf("%+v", r)
		}
	}
}

func TestBenchP2PBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "p2p", "--ranks", "two"},
		{"bench", "p2p", "--ranks", "1"},
		{"bench", "p2p", "--sizes", "1,x"},
		{"bench", "p2p", "--transport", "smoke"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != exitUsage {
			t.Errorf("%v: exit %d: %s", args, code, errb.String())
		}
	}
}
