package bench

import (
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

func TestSpread(t *testing.T) {
	for _, tc := range []struct {
		n     int
		hosts []string
		want  []string
	}{
		{2, nil, nil},
		{2, []string{"h1", "h1", "h2", "h2"}, []string{"h1", "h2"}},
		{4, []string{"h1", "h1", "h2", "h2"}, []string{"h1", "h1", "h2", "h2"}},
		{4, []string{"h1", "h2", "h3"}, []string{"h1", "h1", "h2", "h3"}},
		{2, []string{"h1", "h2", "h3"}, []string{"h1", "h2"}},
		{3, []string{"a"}, []string{"a", "a", "a"}},
	} {
		if got := spread(tc.n, tc.hosts); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("spread(%d, %v) = %v, want %v", tc.n, tc.hosts, got, tc.want)
		}
	}
}

// TestMPIBetween checks mpirun's command line between hosts: mpirun on
// the first host through the agent, --host in blocks as spread places
// Plexus's ranks, the agent without ssh's "--", TCP on the given network.
func TestMPIBetween(t *testing.T) {
	m := &mpiImpl{dir: "/tmp/p", cfg: P2PConfig{Hosts: []string{"h1", "h1", "h2", "h2"}, SSH: []string{"ssh", "-o", "BatchMode=yes", "--"}, MPIInterface: "10.0.0.0/24"}}
	got := strings.Join(m.command(peerRun{prog: "coll", ranks: 4, args: []string{"-n", "20"}}), " ")
	want := "ssh -o BatchMode=yes -- h1 mpirun --allow-run-as-root --oversubscribe -n 4 --bind-to none --host h1:2,h2:2 --map-by ppr:2:node " +
		"--mca plm_rsh_agent 'ssh -o BatchMode=yes' --mca pml ob1 --mca btl tcp,self " +
		"--mca btl_tcp_if_include 10.0.0.0/24 --mca oob_tcp_if_include 10.0.0.0/24 /tmp/p/coll -n 20"
	if got != want {
		t.Errorf("command\n%s\nwant\n%s", got, want)
	}
	m.cfg.Hosts, m.tr = nil, transports["tcp"]
	if got := m.command(peerRun{prog: "latency", ranks: 2}); got[0] != "mpirun" || !strings.Contains(strings.Join(got, " "), "btl_tcp_if_include lo") {
		t.Errorf("on this host: %q", got)
	}
}

// TestAutoBetweenHosts: with transport auto Open MPI takes vader within a
// host and TCP between hosts, on both paths of command, and Plexus's rank
// program is told auto, and -hierarchy for the collectives alone.
func TestAutoBetweenHosts(t *testing.T) {
	cfg := P2PConfig{Transport: "auto", Hierarchy: true, Hosts: []string{"h1", "h2"}, SSH: []string{"agent"}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	m := &mpiImpl{dir: "/tmp/p", tr: transports["auto"], cfg: cfg}
	for _, hosts := range [][]string{cfg.Hosts, nil} {
		m.cfg.Hosts = hosts
		got := strings.Join(m.command(peerRun{prog: "coll", ranks: 4}), " ")
		if !strings.Contains(got, "--mca btl vader,tcp,self") || strings.Contains(got, "btl_tcp_if_include lo") {
			t.Errorf("hosts %v: %s", hosts, got)
		}
	}
	p := &plexusImpl{cmd: []string{"rank"}, transport: "auto", cfg: cfg}
	coll := strings.Join(p.args(peerRun{prog: "coll", ranks: 4}), " ")
	lat := strings.Join(p.args(peerRun{prog: "latency", ranks: 2}), " ")
	if coll != "-bench coll -transport auto -serialized -hierarchy" || strings.Contains(lat, "-hierarchy") {
		t.Errorf("rank arguments: coll %q, latency %q", coll, lat)
	}
}

// TestPlexusNotes: the table says when Plexus's ranks mixed shared memory
// and TCP, and on how many levels its collectives ran across hosts.
func TestPlexusNotes(t *testing.T) {
	two := []string{"h1", "h2"}
	for _, tc := range []struct {
		res  []P2PResult
		want []string
	}{
		{nil, nil},
		{[]P2PResult{{Via: []string{"self", "tcp"}, Hosts: two}}, nil},
		{[]P2PResult{{Via: []string{"self", "shm", "tcp", "tcp"}, Levels: 1, Hosts: two}},
			[]string{"plexus: shared memory between ranks of one host, TCP between hosts", "plexus: collectives on trees across hosts"}},
		{[]P2PResult{{Levels: 1, Hosts: two}, {Levels: 2, Hosts: two}},
			[]string{"plexus: collectives in two levels across hosts (collective.Config.Hierarchy, or crowded hosts on CPUs apart)"}},
		{[]P2PResult{{Levels: 2, Hosts: []string{"h1"}}}, nil},
	} {
		if got := plexusNotes(tc.res); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%+v: %q, want %q", tc.res, got, tc.want)
		}
	}
}

// TestShellQuote runs quoted words through sh, as a remote shell does.
func TestShellQuote(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	words := []string{"plain", "", "a b", "it's", `"$HOME"`, "-test.run=^$", "x;y|z&", "*", "1,2:3/4"}
	quoted := onHost([]string{"printf", "%s\\n"}, "", words)[3:]
	out, err := exec.Command(sh, "-c", "printf '%s\\n' "+strings.Join(quoted, " ")).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); !reflect.DeepEqual(got, words) {
		t.Errorf("sh read %q, want %q", got, words)
	}
}

func TestP2PConfigHosts(t *testing.T) {
	for _, c := range []P2PConfig{
		{Hosts: []string{"h1", "h2"}, Transport: "shm"},
		{Hosts: []string{"h1", "h2"}, SSH: []string{}},
		{Hosts: []string{"h1", "-oProxyCommand=x"}},
		{Hosts: []string{"h1", "h2"}, Hierarchy: true},
		{Hosts: []string{"h1", "h2"}, Hierarchy: true, Transport: "tcp"},
	} {
		if err := c.Validate(); !errors.Is(err, ErrP2PConfig) {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if err := (P2PConfig{Hosts: []string{"h1", "h2"}, SSH: []string{"agent"}}).Validate(); err != nil {
		t.Error(err)
	}
}

// TestHostTargets: results between hosts are judged by TCP's targets and
// the 4-rank collectives', and the table says where the ranks ran.
func TestHostTargets(t *testing.T) {
	var res []P2PResult
	for _, p := range [][]P2PResult{pair("latency", 2, 1, 1.1, 1), pair("barrier", 4, 0, 2, 1), pair("allreduce", 4, 8, 0.5, 1)} {
		res = append(res, p...)
	}
	for i := range res {
		res[i].Transport, res[i].Hosts = "tcp", []string{"h1", "h2"}
	}
	var names []string
	for _, tg := range P2PTargets(targetSet(res), res) {
		names = append(names, tg.Name+map[bool]string{true: " met", false: " not met"}[tg.Met()])
	}
	want := []string{"latency at 1 B met", "barrier, 4 ranks not met", "allreduce 8 B, 4 ranks met"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("targets %q, want %q", names, want)
	}
	var b strings.Builder
	if err := WriteP2PTable(&b, res); err != nil || !strings.Contains(b.String(), "hosts: h1, h2,") ||
		!strings.HasPrefix(strings.TrimSpace(b.String()), "bench  ranks  hosts") {
		t.Errorf("table %v:\n%s", err, b.String())
	}
}
