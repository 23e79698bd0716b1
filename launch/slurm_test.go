package launch

import (
	"context"
	"errors"
	"net"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// srun2 is what srun -N 2 -n 4 gave task 2 (on h2) of step 0 of job 17.
var srun2 = []string{
	"SLURM_PROCID=2", "SLURM_NTASKS=4", "SLURM_STEP_NUM_TASKS=4", "SLURM_LOCALID=0", "SLURM_NODEID=1",
	"SLURM_JOB_ID=17", "SLURM_STEP_ID=0", "SLURM_STEP_NODELIST=h[1-2]", "SLURM_STEP_TASKS_PER_NODE=2(x2)",
}

func TestDetectSrunOnHosts(t *testing.T) {
	port := strconv.Itoa(stepPort("slurm-17.0"))
	base := Info{Rank: 2, Size: 4, LocalRank: 0, LocalSize: 2, Launcher: SRun, JobID: "slurm-17.0",
		Hosts: []string{"h1", "h2"}, Secret: secret16()}
	for _, c := range []struct {
		name string
		env  []string
		root string
	}{
		{"derived port", srun2, "h1:" + port},
		{"reserved ports", append(srun2, "SLURM_STEP_RESV_PORTS=12000-12003"), "h1:12000"},
		{"reserved list", append(srun2, "SLURM_STEP_RESV_PORTS=12007,12009"), "h1:12007"},
		{"PLEXUS_ROOT wins", append(srun2, "PLEXUS_ROOT=h2:7000"), "h2:7000"},
	} {
		got, err := Detect(fakeEnv(append(c.env, "PLEXUS_SECRET="+hexSecret)...))
		want := base
		want.Root = c.root
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v, %v\nwant %+v", c.name, got, err, want)
		}
	}
	// Without a secret nothing is derived: Join says what is missing.
	got, err := Detect(fakeEnv(srun2...))
	if err != nil || got.Root != "" {
		t.Errorf("without PLEXUS_SECRET: root %q, %v; want none", got.Root, err)
	}
	// One host keeps the rendezvous file.
	one, err := Detect(fakeEnv("SLURM_PROCID=1", "SLURM_NTASKS=2", "SLURM_LOCALID=1", "SLURM_JOB_ID=9",
		"SLURM_STEP_ID=0", "SLURM_STEP_NODELIST=h1", "PLEXUS_SECRET="+hexSecret))
	if err != nil || one.Root != "" {
		t.Errorf("one host: root %q, %v; want none", one.Root, err)
	}
}

func TestDetectSrunOnHostsErrors(t *testing.T) {
	rank0 := []string{"SLURM_PROCID=0", "SLURM_NTASKS=4", "SLURM_LOCALID=0", "SLURM_NODEID=1", "SLURM_JOB_ID=17",
		"SLURM_STEP_ID=0", "SLURM_STEP_NODELIST=h[1-2]", "PLEXUS_SECRET=" + hexSecret}
	for _, c := range []struct {
		env  []string
		want string
	}{
		{rank0, "rank 0 runs on node 1 of the step (h[1-2]), not on its first, h1"},
		{append(srun2, "PLEXUS_SECRET="+hexSecret, "SLURM_STEP_RESV_PORTS=x-y"), `SLURM_STEP_RESV_PORTS="x-y" does not start with a port`},
		{append(srun2, "PLEXUS_SECRET="+hexSecret, "SLURM_STEP_RESV_PORTS=70000"), "does not start with a port"},
	} {
		_, err := Detect(fakeEnv(c.env...))
		if !errors.Is(err, ErrEnv) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want ErrEnv with %q", c.env, err, c.want)
		}
	}
}

func TestStepPort(t *testing.T) {
	seen := map[int]bool{}
	for job := range 200 {
		for step := range 4 {
			p := stepPort("slurm-" + strconv.Itoa(job) + "." + strconv.Itoa(step))
			if p < stepPortLow || p > 65535 {
				t.Fatalf("step port %d outside %d-65535", p, stepPortLow)
			}
			seen[p] = true
		}
	}
	// 800 steps in 4536 ports: a hash that spreads them leaves few alike.
	if len(seen) < 700 {
		t.Errorf("800 steps share %d ports", len(seen))
	}
}

// TestJoinNeedsSecretOnHosts: a job on two hosts without a secret fails
// at once, on every rank, rather than waiting for a rendezvous file that
// the other host cannot see.
func TestJoinNeedsSecretOnHosts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for rank := range 2 {
		info := Info{Rank: rank, Size: 4, Launcher: SRun, JobID: "slurm-17.0", Hosts: []string{"h1", "h2"}}
		_, err := Join(ctx, info, "127.0.0.1:1")
		if !errors.Is(err, errNoSecret) || !strings.Contains(err.Error(), "srun job of 4 ranks on h1,h2") {
			t.Errorf("rank %d: %v; want errNoSecret naming the hosts", rank, err)
		}
		if ctx.Err() != nil {
			t.Fatalf("rank %d waited for the context", rank)
		}
	}
}

// TestJoinSrunOnHosts joins 3 ranks of a two-host srun step on this
// machine, with its derived root moved to loopback by PLEXUS_ROOT as the
// only difference: the ranks agree on the book.
func TestJoinSrunOnHosts(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	root := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	books := make(chan []string, 3)
	errs := make(chan error, 3)
	for r := range 3 {
		env := []string{"SLURM_PROCID=" + strconv.Itoa(r), "SLURM_NTASKS=3", "SLURM_LOCALID=0", "SLURM_NODEID=" + strconv.Itoa(r),
			"SLURM_JOB_ID=17", "SLURM_STEP_ID=1", "SLURM_STEP_NODELIST=h[1-3]", "PLEXUS_SECRET=" + hexSecret, "PLEXUS_ROOT=" + root}
		go func() {
			info, err := Detect(fakeEnv(env...))
			if err == nil {
				var b Book
				b, err = Join(ctx, info, "addr-"+strconv.Itoa(info.Rank))
				books <- b.Addrs
			}
			errs <- err
		}()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		if b := <-books; !reflect.DeepEqual(b, []string{"addr-0", "addr-1", "addr-2"}) {
			t.Errorf("book %q", b)
		}
	}
}
