package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestBenchP2PJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a job")
	}
	useBuiltRank(t)
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
		Serialized, PGO              bool
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res) != 6 {
		t.Fatalf("%v, %d results\n%s", err, len(res), out.String())
	}
	for _, r := range res {
		if r.Impl != "plexus" || r.Transport != transport || r.Ranks != 2 || r.Value <= 0 || r.Unit == "" {
			t.Errorf("%+v", r)
		}
		// Serialized worlds by default; they apply over shared memory only.
		if r.Serialized != (transport == "shm") {
			t.Errorf("%s over %s: serialized %v", r.Bench, transport, r.Serialized)
		}
		if !r.PGO {
			t.Errorf("%s over %s: built without its profile", r.Bench, transport)
		}
	}
}

// TestBenchP2PGoroutines runs the goroutine sweep alone and checks the
// table's goroutines column.
func TestBenchP2PGoroutines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a job")
	}
	useBuiltRank(t)
	var out, errb bytes.Buffer
	code := run([]string{"bench", "p2p", "--quick", "--ranks", "2", "--goroutines", "1,10", "--cases", "latency_mt,msgrate_mt"}, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	// The header, four rows, then the note on how the program was built.
	if len(lines) != 6 || !strings.HasPrefix(strings.TrimSpace(lines[0]), "bench  ranks  goroutines") ||
		!strings.Contains(lines[5], "profile-guided") {
		t.Fatalf("table:\n%s", out.String())
	}
	for i, want := range []string{"latency_mt 2 1", "latency_mt 2 10", "msgrate_mt 2 1", "msgrate_mt 2 10"} {
		if f := strings.Fields(lines[i+1]); strings.Join(f[:3], " ") != want {
			t.Errorf("row %d %q, want %s ...", i+1, lines[i+1], want)
		}
	}
}

func TestBenchP2PBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "p2p", "--ranks", "two"},
		{"bench", "p2p", "--ranks", "1"},
		{"bench", "p2p", "--sizes", "1,x"},
		{"bench", "p2p", "--transport", "smoke"},
		{"bench", "p2p", "--goroutines", "0"},
		{"bench", "p2p", "--goroutines", "1,many"},
		{"bench", "p2p", "--cases", "pingpong"},
		{"bench", "p2p", "--cases", "latency_mt"},
		{"bench", "p2p", "--rsh", "agent"},
		{"bench", "p2p", "--mpi-if", "eth0"},
		{"bench", "p2p", "--host", "h1,h2", "--transport", "shm"},
		{"bench", "p2p", "--host", "h1", "--hostfile", "f"},
		{"bench", "p2p", "--hostfile", "/nonexistent/hosts"},
		{"bench", "p2p", "--host", "h1,-oProxyCommand=x"},
		{"bench", "p2p", "--host", "h1", "--rsh", " "},
		{"bench", "p2p", "--host", "h1,h2", "--hierarchy"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != exitUsage {
			t.Errorf("%v: exit %d: %s", args, code, errb.String())
		}
	}
}

// TestBenchP2PHostFlags: --host, --hostfile and --rsh read as plexus run
// reads them.
func TestBenchP2PHostFlags(t *testing.T) {
	hostfile := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(hostfile, []byte("h1 slots=2\nh2 slots=2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &cli{stdout: io.Discard, stderr: io.Discard, cmd: benchP2PCmd}
	for _, tc := range []struct {
		args       []string
		hosts, ssh []string
	}{
		{[]string{"--hostfile", hostfile, "--rsh", "/x/agent"}, []string{"h1", "h1", "h2", "h2"}, []string{"/x/agent"}},
		{[]string{"--host", "h1, h2", "--rsh", "ssh -p 2222"}, []string{"h1", "h2"}, []string{"ssh", "-p", "2222", "--"}},
		{[]string{"--host", "h1,h2"}, []string{"h1", "h2"}, nil},
		{nil, nil, nil},
	} {
		o := new(p2pOpts)
		if err := o.parse(c, tc.args); err != nil || !slices.Equal(o.cfg.Hosts, tc.hosts) || !slices.Equal(o.cfg.SSH, tc.ssh) {
			t.Errorf("%q: hosts %q, ssh %q, %v; want %q, %q", tc.args, o.cfg.Hosts, o.cfg.SSH, err, tc.hosts, tc.ssh)
		}
	}
}
