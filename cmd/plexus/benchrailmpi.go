package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"

	"github.com/plexus-hpc/plexus/transport/multirail"
)

// openmpi runs bench/peers/railbw.c under mpirun from this host (rank 0's)
// and this host's peer (rank 1's), for bench's cases: once for the
// latency cases; once for the bandwidth cases, and with --compete once
// more with a competing flow per bandwidth case, started when the
// program says the case begins.
func (d *railDriver) openmpi(ctx context.Context, bench string) error {
	if d.o.mpiProg == "" {
		return nil // the command could not build it, and notes why
	}
	if n := runtime.NumCPU(); d.sameKernel && n < 4 {
		d.mpiNote = fmt.Sprintf("mpi_yield_when_idle 1: both hosts run on one kernel of %d CPUs", n)
	}
	if bench == "latency" {
		return d.mpirun(ctx, bench, false)
	}
	for _, compete := range d.competeModes() {
		if err := d.mpirun(ctx, bench, compete > 0); err != nil {
			return err
		}
	}
	return nil
}

// mpiLine is a line of the peer program's output.
type mpiLine struct {
	Bench string  `json:"bench"`
	Size  int     `json:"size"`
	Iters int     `json:"iters"`
	Value float64 `json:"value"`
}

// mpirun runs the program once for bench's cases, for this round, and
// tallies them; a failure is tallied as a row saying why, and Open MPI is
// not run again for that bench and competition.
func (d *railDriver) mpirun(ctx context.Context, bench string, compete bool) error {
	failure := railRow{Bench: bench, Impl: "openmpi", Unit: "Mbit/s", Compete: compete}
	if bench == "latency" {
		failure.Unit = "us"
	}
	if d.tally.skip(failure) {
		return nil
	}
	got, err := d.mpirunOnce(ctx, bench, compete)
	if err != nil {
		failure.Note = "failed: " + err.Error()
		d.tally.add(failure)
		return nil
	}
	for _, r := range got {
		d.tally.add(r)
	}
	return nil
}

// mpirunOnce runs the program once, with rank 1 holding the other ends
// of the competing flows.
func (d *railDriver) mpirunOnce(ctx context.Context, bench string, compete bool) ([]railRow, error) {
	cs := railCase{Bench: "bandwidth", Impl: "openmpi", Fast: d.fast}
	if compete {
		cs.Compete = len(d.sizes.bw)
	}
	if err := railSend(ctx, d.s.w, 1, tagRailCase, cs); err != nil {
		return nil, err
	}
	comps, err := dialCompetitors(ctx, d.s, cs)
	var rows []railRow
	if err == nil {
		rows, err = d.runPeer(ctx, bench, compete, comps)
		closeAll(comps)
	}
	if _, ferr := finishCase(ctx, d.s, err); err == nil {
		err = ferr
	}
	return rows, err
}

// runPeer runs mpirun and turns the program's lines into rows.
func (d *railDriver) runPeer(ctx context.Context, bench string, competing bool, comps []net.Conn) ([]railRow, error) {
	args, err := d.mpiArgs(bench, competing)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "mpirun", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var rows []railRow
	sc := bufio.NewScanner(out)
	started := 0
	var flow *competitor // the running case's competing flow
	var flowErr error    // a flow that would not start: the run failed
	defer func() { flow.stop() }()
	for sc.Scan() {
		var l mpiLine
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Size <= 0 {
			fmt.Fprintln(d.c.stderr, sc.Text())
			continue
		}
		switch l.Bench {
		case "start":
			if started < len(comps) && flowErr == nil {
				flow.stop()
				flow, flowErr = startCompeting(comps[started].(*flowProc))
				started++
			}
		case "half":
			flow.stop()
		case "latency":
			rows = append(rows, railRow{Bench: "latency", Impl: "openmpi", Size: l.Size, Value: l.Value, Unit: "us", Bytes: 2 * int64(l.Size) * int64(l.Iters), Note: d.mpiNote})
		case "bandwidth":
			rows = append(rows, railRow{Bench: "bandwidth", Impl: "openmpi", Size: l.Size, Value: l.Value * 8, Unit: "Mbit/s", Compete: competing, Bytes: int64(l.Size) * int64(l.Iters), Note: d.mpiNote})
		}
	}
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("mpirun %s: %w\n%s", strings.Join(args, " "), err, tail(stderr.String(), 2000))
	}
	return rows, flowErr
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// mpiArgs is mpirun's command line for bench's cases: one rank on each
// host, the TCP BTL on the rails' networks only.
func (d *railDriver) mpiArgs(bench string, compete bool) ([]string, error) {
	nets, err := d.railNets()
	if err != nil {
		return nil, err
	}
	var hosts []string
	for _, h := range strings.Split(d.o.mpiHosts, ",") {
		h, _, _ = strings.Cut(h, ":")
		hosts = append(hosts, h+":1")
	}
	var args []string
	if os.Geteuid() == 0 {
		args = append(args, "--allow-run-as-root")
	}
	// One rank per node by mapping, not by slots alone, which some Open
	// MPI mappers ignore (bench/p2pplace.go).
	args = append(args, "--host", strings.Join(hosts, ","), "--map-by", "ppr:1:node", "-n", "2", "--bind-to", "none")
	if d.mpiNote != "" {
		// Each host's daemon sees all the CPUs and would let both ranks
		// spin on them (bench/p2pkernel.go says the same of bench p2p).
		args = append(args, "--mca", "mpi_yield_when_idle", "1")
	}
	if d.o.mpiRsh != "" {
		args = append(args, "--mca", "plm_rsh_agent", d.o.mpiRsh)
	}
	args = append(args, "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", strings.Join(nets, ","), d.o.mpiProg)
	if bench == "latency" {
		return append(args, "-l", joinInts(d.sizes.lat), "-n", strconv.Itoa(d.sizes.latIters)), nil
	}
	args = append(args, "-s", joinInts(d.sizes.bw), "-b", strconv.Itoa(d.sizes.bytes), "-w", strconv.Itoa(4<<20))
	if compete {
		args = append(args, "-m", "-p", "10")
	}
	return args, nil
}

// railNets are the networks of this host's ends of the rails, in CIDR
// form.
func (d *railDriver) railNets() ([]string, error) {
	local, err := multirail.LocalNets()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range d.s.rails {
		ip := net.ParseIP(r.Local)
		for _, n := range local {
			if n.IP.Equal(ip) {
				out = append(out, (&net.IPNet{IP: ip.Mask(n.Mask), Mask: n.Mask}).String())
			}
		}
	}
	if len(out) != len(d.s.rails) {
		return nil, fmt.Errorf("the rails' networks: found %d of %d", len(out), len(d.s.rails))
	}
	return out, nil
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// bootID names the kernel this rank runs on: namespace hosts and
// containers share one, and its CPUs.
func bootID() string {
	b, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b))
}
