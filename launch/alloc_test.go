package launch

import (
	"errors"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

func TestSlurmAllocation(t *testing.T) {
	for _, c := range []struct {
		name  string
		env   []string
		slots []string
		str   string
	}{
		{"salloc -N 2 -n 4", []string{"SLURM_JOB_ID=3", "SLURM_JOB_NODELIST=h[1-2]", "SLURM_TASKS_PER_NODE=2(x2)", "SLURM_JOB_CPUS_PER_NODE=4(x2)"},
			[]string{"h1", "h1", "h2", "h2"}, "job 3 on h[1-2] (4 slots: h1 x2, h2 x2)"},
		{"cpus only", []string{"SLURM_JOB_ID=4", "SLURM_JOB_NODELIST=n[07-08],gpu", "SLURM_JOB_CPUS_PER_NODE=1(x2),3"},
			[]string{"n07", "n08", "gpu", "gpu", "gpu"}, "job 4 on n[07-08],gpu (5 slots: n07 x1, n08 x1, gpu x3)"},
		{"nodes only", []string{"SLURM_JOB_ID=5", "SLURM_JOB_NODELIST=a,b"}, []string{"a", "b"}, "job 5 on a,b (2 slots: a x1, b x1)"},
	} {
		a, ok, err := SlurmAllocation(fakeEnv(c.env...))
		if err != nil || !ok || !reflect.DeepEqual(a.Slots, c.slots) || a.String() != c.str {
			t.Errorf("%s: %+v %v %v; want slots %q, %q", c.name, a, ok, err, c.slots, c.str)
		}
	}
	if a, ok, err := SlurmAllocation(fakeEnv("SLURM_JOB_ID=3", "SLURM_TASKS_PER_NODE=2")); ok || err != nil || a.Slots != nil {
		t.Errorf("outside an allocation: %+v %v %v", a, ok, err)
	}
}

func TestSlurmAllocationErrors(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"SLURM_JOB_NODELIST=h[2-1]"}, "descending"},
		{[]string{"SLURM_JOB_NODELIST=h[1-2]", "SLURM_TASKS_PER_NODE=2(x3)"}, `SLURM_TASKS_PER_NODE lists 3 nodes, SLURM_JOB_NODELIST="h[1-2]" 2`},
		{[]string{"SLURM_JOB_NODELIST=h1", "SLURM_TASKS_PER_NODE=two"}, "SLURM_TASKS_PER_NODE: launch: bad tasks-per-node list"},
		{[]string{"SLURM_JOB_NODELIST=h[1-2]", "SLURM_TASKS_PER_NODE=1000000(x2)"}, "SLURM_TASKS_PER_NODE gives more than"},
	} {
		_, ok, err := SlurmAllocation(fakeEnv(c.env...))
		if !ok || !errors.Is(err, ErrEnv) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v %v; want ErrEnv with %q", c.env, ok, err, c.want)
		}
	}
}

// TestSrunAgent runs the agent's shell with a stand-in srun that prints
// its arguments: the host and the shell command arrive as one argument
// each, however they are quoted.
func TestSrunAgent(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	fake := `printf '<%s>' "$@"`
	if err := os.WriteFile(dir+"/srun", []byte("#!"+sh+"\n"+fake+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	agent := SrunAgent()
	shellCmd := `read -r S && exec env 'A=b c' prog "it's"`
	cmd := exec.Command(agent[0], append(agent[1:], "h2", shellCmd)...)
	cmd.Env = []string{"PATH=" + dir}
	out, err := cmd.Output()
	want := "<--nodes=1><--ntasks=1><--nodelist=h2><--overlap><--quiet><--></bin/sh><-c><" + shellCmd + ">"
	if err != nil || string(out) != want {
		t.Errorf("srun got %s (%v)\nwant %s", out, err, want)
	}
}
