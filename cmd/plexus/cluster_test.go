//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/internal/jobtest"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/topo/sysfs"
)

// clusterScript makes the namespace hosts h1, h2, ... (testdata/cluster).
const clusterScript = "../../testdata/cluster/cluster.sh"

// TestRunOnTwoHosts runs 4 ranks on two namespace hosts through plexus
// run --hostfile --rsh agent: 2 on h1 and 2 on h2. Every pair of ranks
// exchanges an 8-byte and a 4 MiB message with checked contents, which the
// ranks on one host send through shared memory (a segment in their host's
// own /dev/shm) and those on two hosts over TCP between the namespaces;
// every rank says which transport reaches each other rank, and where the
// machine is crowded each host's ranks run on CPUs apart. Then wildcard
// receives, and Barrier, Broadcast and Allreduce of 8 B and 4 MiB on
// trees that cross between the hosts less often than a binary tree (the
// small ones in two levels instead where the machine is crowded).
func TestRunOnTwoHosts(t *testing.T) {
	_, hostfile, agent := twoHostJob(t, 2)
	t.Setenv(rankEnv, "cluster")
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	t.Setenv("GOMAXPROCS", "") // the ranks' Ps are comm's to choose (checkBinding)
	out, errOut, code := plexus(t, "run", "--hostfile", hostfile, "--rsh", agent, "-n", "4", "--timeout", "20s",
		"--", os.Args[0], "-test.run=^$")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	checkHosts(t, out, []string{"h1", "h1", "h2", "h2"})
	checkBinding(t, out, []string{"h1", "h1", "h2", "h2"})
}

// checkHosts checks the ranks' reports in out: rank r ran on hosts[r],
// found its host's shared-memory segment and received from every other
// rank; ranks share a network namespace exactly when they share a host.
func checkHosts(t *testing.T, out string, hosts []string) {
	t.Helper()
	netns := map[string]string{} // host: namespace
	for r, want := range hosts {
		m := regexp.MustCompile(fmt.Sprintf(`(?m)^\[%d\] rank %d on (h\d+) \((net:\[\d+\])\): shm segment (yes|no)$`, r, r)).FindStringSubmatch(out)
		if m == nil {
			t.Errorf("rank %d said nothing of its host:\n%s", r, out)
			continue
		}
		host, ns, seg := m[1], m[2], m[3]
		if host != want || seg != "yes" {
			t.Errorf("rank %d on %s, shm segment %s; want %s, yes", r, host, seg, want)
		}
		if other, ok := netns[host]; ok && other != ns {
			t.Errorf("ranks on %s in network namespaces %s and %s", host, other, ns)
		}
		netns[host] = ns
		for p := range hosts {
			if p != r && !strings.Contains(out, fmt.Sprintf("[%d] rank %d received both from rank %d\n", r, r, p)) {
				t.Errorf("rank %d did not receive from rank %d:\n%s", r, p, out)
			}
			if via := fmt.Sprintf("[%d] rank %d reaches rank %d by %s\n", r, r, p, wantVia(hosts, r, p)); !strings.Contains(out, via) {
				t.Errorf("want %q in:\n%s", via, out)
			}
		}
	}
	if len(netns) == 2 && netns["h1"] == netns["h2"] {
		t.Errorf("h1 and h2 share network namespace %s: comm would take them for one host", netns["h1"])
	}
	checkCollectives(t, out, len(hosts))
}

// checkBinding checks the CPUs of ranks that no launcher bound (plexus
// run's ranks on other hosts) in out: where the machine is crowded, each
// host's ranks are bound to one share of its CPUs, apart from every other
// host's (comm's machineShare), and the collectives run in two levels;
// otherwise no rank is bound by comm, all have the same CPUs, and the
// collectives run on the trees.
func checkBinding(t *testing.T, out string, hosts []string) {
	t.Helper()
	cpus := map[string]string{} // host: its ranks' CPUs
	seen := map[string]string{} // CPUs: the host whose ranks have them
	var crowded []string
	for r, h := range hosts {
		m := regexp.MustCompile(fmt.Sprintf(`(?m)^\[%d\] rank %d crowded (true|false) on CPUs (\S+) with (\d+) Ps$`, r, r)).FindStringSubmatch(out)
		if m == nil {
			t.Errorf("rank %d did not say its CPUs:\n%s", r, out)
			return
		}
		crowded = append(crowded, m[1])
		if want := sharedPs(m[2], hosts, h); m[1] == "true" && m[3] != strconv.Itoa(want) {
			t.Errorf("rank %d of a crowded machine on CPUs %s: %s Ps, want %d (its share)", r, m[2], m[3], want)
		}
		levels := map[string]string{"true": "2", "false": "1"}[m[1]]
		if want := fmt.Sprintf("[%d] rank %d collectives in %s levels\n", r, r, levels); !strings.Contains(out, want) {
			t.Errorf("crowded %s: want %q in:\n%s", m[1], want, out)
		}
		if c, ok := cpus[h]; ok && c != m[2] {
			t.Errorf("ranks of %s on CPUs %s and %s: want one share per host", h, c, m[2])
		}
		cpus[h] = m[2]
		if other, ok := seen[m[2]]; ok && other != h && crowded[0] == "true" {
			t.Errorf("hosts %s and %s both on CPUs %s of a crowded machine: want apart", other, h, m[2])
		}
		seen[m[2]] = h
	}
	if crowded[0] == "false" && len(seen) != 1 {
		t.Errorf("machine not crowded, yet the hosts' ranks run on different CPUs %v", cpus)
	}
	for _, c := range crowded[1:] {
		if c != crowded[0] {
			t.Errorf("ranks disagree on whether the machine is crowded: %v", crowded)
		}
	}
}

// sharedPs is the GOMAXPROCS comm gives a rank of a crowded machine
// bound to its host's share, cpus: those CPUs over host's ranks, at
// least one.
func sharedPs(cpus string, hosts []string, host string) int {
	list, err := sysfs.ParseCPUList(cpus)
	if err != nil {
		return -1
	}
	ranks := 0
	for _, h := range hosts {
		if h == host {
			ranks++
		}
	}
	return max(1, len(list)/ranks)
}

// cpusAllowed is this process's Cpus_allowed_list (proc(5)).
func cpusAllowed() string {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

// wantVia is the transport from rank r to rank p when rank i runs on
// hosts[i]: shared memory on one host, TCP between two.
func wantVia(hosts []string, r, p int) string {
	switch {
	case r == p:
		return "self"
	case hosts[r] == hosts[p]:
		return "shm"
	}
	return "tcp"
}

// up brings up n namespace hosts for the test and takes them down after
// it, or skips when this machine cannot make them.
func up(t *testing.T, n int) { jobtest.ClusterUp(t, clusterScript, n) }

// clusterRank is a rank of TestRunOnTwoHosts: join the world, say where
// it runs, then send every other rank a small and a large message and
// check the ones it receives.
func clusterRank() int {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := exchangeAll(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func exchangeAll(ctx context.Context) error {
	w, err := comm.Join(ctx)
	if err != nil {
		return err
	}
	defer w.Close()
	host, _ := os.Hostname()
	netns, _ := os.Readlink("/proc/self/ns/net") // part of comm's host key
	segs, _ := filepath.Glob("/dev/shm/plexus-*")
	fmt.Printf("rank %d on %s (%s): shm segment %s\n", w.Rank(), host, netns, map[bool]string{true: "yes", false: "no"}[len(segs) > 0])
	fmt.Printf("rank %d crowded %v on CPUs %s with %d Ps\n", w.Rank(), w.Crowded(), cpusAllowed(), runtime.GOMAXPROCS(0))
	for p := range w.Size() {
		fmt.Printf("rank %d reaches rank %d by %s\n", w.Rank(), p, w.Transport(p))
	}
	var reqs []*comm.Request
	for p := range w.Size() {
		if p == w.Rank() {
			continue
		}
		for tag, msg := range [][]byte{greeting(w.Rank(), p), pattern(w.Rank(), p)} {
			req, err := w.Isend(p, tag, msg)
			if err != nil {
				return err
			}
			reqs = append(reqs, req)
		}
	}
	for p := range w.Size() {
		if p != w.Rank() {
			if err := receiveFrom(ctx, w, p); err != nil {
				return err
			}
		}
	}
	if _, err := comm.Waitall(ctx, reqs...); err != nil {
		return err
	}
	if err := wildcardAcross(ctx, w); err != nil {
		return err
	}
	return collectivesAcross(ctx, w)
}

// receiveFrom receives and checks rank p's two messages.
func receiveFrom(ctx context.Context, w *comm.World, p int) error {
	for tag, want := range [][]byte{greeting(p, w.Rank()), pattern(p, w.Rank())} {
		buf := make([]byte, len(want)+1)
		st, err := w.Recv(ctx, p, tag, buf)
		if err != nil {
			return err
		}
		if !bytes.Equal(buf[:st.Len], want) {
			return fmt.Errorf("rank %d: message %d from rank %d: %d bytes, not the ones sent", w.Rank(), tag, p, st.Len)
		}
	}
	fmt.Printf("rank %d received both from rank %d\n", w.Rank(), p)
	return nil
}

// greeting is the small message of a pair: 8 bytes, as the issue asks.
func greeting(from, to int) []byte { return fmt.Appendf(nil, "f%03dt%03d", from%1000, to%1000) }

// pattern is a 4 MiB message, large enough for the transports' bulk paths.
func pattern(from, to int) []byte {
	b := make([]byte, 4<<20)
	for i := range b {
		b[i] = byte(i*7 + from*31 + to)
	}
	return b
}

// twoHostJob brings up a cluster of hosts hosts and returns a temporary
// directory, a hostfile of two ranks on h1 and two on h2 in it, and the
// cluster's rsh agent.
func twoHostJob(t *testing.T, hosts int) (dir, hostfile, agent string) {
	t.Helper()
	up(t, hosts)
	dir = t.TempDir()
	hostfile = filepath.Join(dir, "hosts")
	if err := os.WriteFile(hostfile, []byte("h1 slots=2\nh2 slots=2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	agent, err := filepath.Abs("../../testdata/cluster/agent")
	if err != nil {
		t.Fatal(err)
	}
	return dir, hostfile, agent
}
