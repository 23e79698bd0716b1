package main

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/launch"
)

// TestRunSlurmArgs: inside an allocation plexus run takes its slots and
// srun unless the command line says otherwise; outside one nothing
// changes.
func TestRunSlurmArgs(t *testing.T) {
	for _, c := range []struct {
		name  string
		env   []string
		args  []string
		n     int
		hosts []string
		ssh   []string
	}{
		{"allocation", []string{"SLURM_JOB_NODELIST=h[1-2]", "SLURM_TASKS_PER_NODE=2(x2)"}, []string{"prog"},
			4, []string{"h1", "h1", "h2", "h2"}, launch.SrunAgent()},
		{"-n", []string{"SLURM_JOB_NODELIST=h[1-2]", "SLURM_TASKS_PER_NODE=2(x2)"}, []string{"-n", "2", "prog"},
			2, []string{"h1", "h1", "h2", "h2"}, launch.SrunAgent()},
		{"-np", []string{"SLURM_JOB_NODELIST=h[1-2]", "SLURM_TASKS_PER_NODE=2(x2)"}, []string{"-np=8", "prog"},
			8, []string{"h1", "h1", "h2", "h2"}, launch.SrunAgent()},
		{"--rsh", []string{"SLURM_JOB_NODELIST=h[1-2]"}, []string{"--rsh", "agent -x", "prog"},
			2, []string{"h1", "h2"}, []string{"agent", "-x"}},
		{"--host wins", []string{"SLURM_JOB_NODELIST=h[1-2]"}, []string{"--host", "a,b", "prog"},
			1, []string{"a", "b"}, nil},
		{"no allocation", []string{"SLURM_JOB_ID=3", "SLURM_TASKS_PER_NODE=2"}, []string{"prog"}, 1, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			slurmEnv(t, c.env...)
			job, err := new(runOpts).parse(&cli{cmd: runCmd}, c.args)
			if err != nil {
				t.Fatal(err)
			}
			if job.N != c.n || !reflect.DeepEqual(job.Hosts, c.hosts) || !reflect.DeepEqual(job.SSH, c.ssh) {
				t.Errorf("N %d, hosts %q, ssh %q; want %d, %q, %q", job.N, job.Hosts, job.SSH, c.n, c.hosts, c.ssh)
			}
		})
	}
}

// TestRunSlurmBadAllocation: a malformed allocation is a usage error
// that names the variable.
func TestRunSlurmBadAllocation(t *testing.T) {
	slurmEnv(t, "SLURM_JOB_NODELIST=h[1-2]", "SLURM_TASKS_PER_NODE=2(x3)")
	_, errOut, code := plexus(t, "run", "--", "prog")
	if code == exitOK || !strings.Contains(errOut, "SLURM_TASKS_PER_NODE lists 3 nodes") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
}

// TestRunInLocalAllocation runs plexus run in an allocation of this host
// alone, as Slurm would describe it: the ranks run here without srun,
// and plexus run says where they run.
func TestRunInLocalAllocation(t *testing.T) {
	me, err := os.Hostname()
	if err != nil {
		t.Skip("no host name")
	}
	slurmEnv(t, "SLURM_JOB_ID=77", "SLURM_JOB_NODELIST="+me, "SLURM_TASKS_PER_NODE=3")
	t.Setenv(rankEnv, "join")
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	out, errOut, code := plexus(t, "run", "--timeout", "30s", "--", os.Args[0], "-test.run=^$")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	wantAll(t, "stderr", errOut, "plexus run: in Slurm job 77 on "+me+" (3 slots: "+me+" x3): 3 ranks on its hosts, started through srun")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	slices.Sort(lines)
	if want := []string{"[0] rank 0 of 3", "[1] rank 1 of 3", "[2] rank 2 of 3"}; len(lines) != 3 || !strings.HasPrefix(lines[0], want[0]) ||
		!strings.HasPrefix(lines[1], want[1]) || !strings.HasPrefix(lines[2], want[2]) {
		t.Errorf("stdout lacks %q:\n%s", want, out)
	}
}

// slurmEnv clears the Slurm variables plexus run reads and sets pairs.
func slurmEnv(t *testing.T, pairs ...string) {
	t.Helper()
	for _, k := range []string{"SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_TASKS_PER_NODE", "SLURM_JOB_CPUS_PER_NODE"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	for _, p := range pairs {
		k, v, _ := strings.Cut(p, "=")
		t.Setenv(k, v)
	}
}
