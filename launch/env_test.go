package launch

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// fakeEnv turns "K=V" pairs into a getenv function.
func fakeEnv(pairs ...string) func(string) string {
	m := map[string]string{}
	for _, p := range pairs {
		k, v, _ := strings.Cut(p, "=")
		m[k] = v
	}
	return func(k string) string { return m[k] }
}

const hexSecret = "000102030405060708090a0b0c0d0e0f"

// ompi4 is what Open MPI 4.1.4's mpirun gave rank 1 of 2 (trimmed).
var ompi4 = []string{
	"OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2",
	"OMPI_COMM_WORLD_LOCAL_RANK=1", "OMPI_COMM_WORLD_LOCAL_SIZE=2",
	"OMPI_MCA_ess_base_jobid=1137704961", "PMIX_NAMESPACE=1137704961",
	"OMPI_MCA_orte_hnp_uri=1137704960.0;tcp://192.0.2.2:37089;tcp6://[fd00::2]:44339",
}

var srun = []string{
	"SLURM_PROCID=5", "SLURM_NTASKS=7", "SLURM_STEP_NUM_TASKS=7", "SLURM_LOCALID=1",
	"SLURM_JOB_ID=4242", "SLURM_STEP_ID=3", "SLURM_NODEID=2",
	"SLURM_STEP_NODELIST=node[01-03,07],gpu5", "SLURM_STEP_TASKS_PER_NODE=2(x3),1",
}

func TestDetect(t *testing.T) {
	for _, c := range []struct {
		name string
		env  []string
		want Info
	}{
		{"none", nil, Info{Size: 1, LocalSize: 1, Launcher: Single}},
		{"plexus", []string{"PLEXUS_RANK=2", "PLEXUS_SIZE=4", "PLEXUS_LOCAL_RANK=0", "PLEXUS_LOCAL_SIZE=2",
			"PLEXUS_JOB=j1", "PLEXUS_ROOT=127.0.0.1:4000", "PLEXUS_SECRET=" + hexSecret, "PLEXUS_HOSTS=a,a,b,b", "PLEXUS_HOST_CPUS=8"},
			Info{Rank: 2, Size: 4, LocalRank: 0, LocalSize: 2, Launcher: Plexus, JobID: "j1",
				Root: "127.0.0.1:4000", Hosts: []string{"a", "a", "b", "b"}, Secret: secret16(), HostCPUs: 8}},
		{"plexus without local pair", []string{"PLEXUS_RANK=1", "PLEXUS_SIZE=3", "PLEXUS_JOB=j"},
			Info{Rank: 1, Size: 3, LocalRank: 1, LocalSize: 3, Launcher: Plexus, JobID: "j"}},
		{"plexus wins over mpirun", append([]string{"PLEXUS_RANK=0", "PLEXUS_SIZE=1"}, ompi4...),
			Info{Rank: 0, Size: 1, LocalRank: 0, LocalSize: 1, Launcher: Plexus}},
		{"mpirun 4", ompi4, Info{Rank: 1, Size: 2, LocalRank: 1, LocalSize: 2, Launcher: MPIRun, JobID: "ompi-1137704961"}},
		{"mpirun 5", []string{"OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=3", "OMPI_COMM_WORLD_LOCAL_RANK=0",
			"PMIX_NAMESPACE=prterun-vm-812@1"},
			Info{Rank: 0, Size: 3, Launcher: MPIRun, JobID: "ompi-prterun-vm-812@1"}},
		{"mpirun hnp only", []string{"OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=3", "OMPI_COMM_WORLD_LOCAL_RANK=0",
			"OMPI_MCA_orte_hnp_uri=77.0;tcp://h:1"},
			Info{Rank: 0, Size: 3, Launcher: MPIRun, JobID: "ompi-77"}},
		{"mpirun with overrides", append([]string{"PLEXUS_ROOT=n1:9000", "PLEXUS_SECRET=" + hexSecret}, ompi4...),
			Info{Rank: 1, Size: 2, LocalRank: 1, LocalSize: 2, Launcher: MPIRun, JobID: "ompi-1137704961",
				Root: "n1:9000", Secret: secret16()}},
		{"srun", srun, Info{Rank: 5, Size: 7, LocalRank: 1, LocalSize: 2, Launcher: SRun, JobID: "slurm-4242.3",
			Hosts: []string{"node01", "node02", "node03", "node07", "gpu5"}}},
		{"srun last node", append(srun, "SLURM_NODEID=3", "SLURM_LOCALID=0", "SLURM_PROCID=6"),
			Info{Rank: 6, Size: 7, LocalRank: 0, LocalSize: 1, Launcher: SRun, JobID: "slurm-4242.3",
				Hosts: []string{"node01", "node02", "node03", "node07", "gpu5"}}},
		{"old srun", []string{"SLURM_PROCID=0", "SLURM_NTASKS=2", "SLURM_LOCALID=0", "SLURM_JOB_ID=9",
			"SLURM_STEP_ID=0", "SLURM_NODELIST=n1"},
			Info{Rank: 0, Size: 2, Launcher: SRun, JobID: "slurm-9.0", Hosts: []string{"n1"}}},
		{"sbatch script is not srun", []string{"SLURM_PROCID=0", "SLURM_NTASKS=4", "SLURM_JOB_ID=9"},
			Info{Size: 1, LocalSize: 1, Launcher: Single}},
		{"torchrun", []string{"RANK=3", "WORLD_SIZE=8", "LOCAL_RANK=3", "LOCAL_WORLD_SIZE=4",
			"MASTER_ADDR=10.1.2.3", "MASTER_PORT=29500", "TORCHELASTIC_RUN_ID=r7"},
			Info{Rank: 3, Size: 8, LocalRank: 3, LocalSize: 4, Launcher: TorchRun,
				JobID: "torch-r7-10.1.2.3:29500", Root: "10.1.2.3:29500"}},
		{"torch style without master", []string{"RANK=0", "WORLD_SIZE=2", "LOCAL_RANK=0"},
			Info{Rank: 0, Size: 2, Launcher: TorchRun, JobID: "torch-none"}},
	} {
		got, err := Detect(fakeEnv(c.env...))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

func secret16() []byte {
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

func TestDetectErrors(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"PLEXUS_RANK=x", "PLEXUS_SIZE=2"}, `PLEXUS_RANK="x" is not a number`},
		{[]string{"PLEXUS_RANK=0"}, "PLEXUS_SIZE is not set"},
		{[]string{"PLEXUS_RANK=-1", "PLEXUS_SIZE=2"}, "PLEXUS_RANK=-1 is negative"},
		{[]string{"PLEXUS_RANK=2", "PLEXUS_SIZE=2"}, "plexus rank 2 is not below the job size 2"},
		{[]string{"PLEXUS_RANK=0", "PLEXUS_SIZE=0"}, "plexus job of size 0"},
		{[]string{"PLEXUS_RANK=0", "PLEXUS_SIZE=2", "PLEXUS_SECRET=zz"}, "PLEXUS_SECRET is not hexadecimal"},
		{[]string{"PLEXUS_RANK=0", "PLEXUS_SIZE=2", "PLEXUS_SECRET=0102"}, "PLEXUS_SECRET is 2 bytes, want at least 16"},
		{[]string{"PLEXUS_RANK=1", "PLEXUS_SIZE=4", "PLEXUS_LOCAL_RANK=2", "PLEXUS_LOCAL_SIZE=2"}, "local rank 2 is not below the local size 2"},
		{[]string{"PLEXUS_RANK=1", "PLEXUS_SIZE=4", "PLEXUS_LOCAL_SIZE=5"}, "local size 5 exceeds the job size 4"},
		{[]string{"OMPI_COMM_WORLD_RANK=4", "OMPI_COMM_WORLD_SIZE=4", "OMPI_COMM_WORLD_LOCAL_RANK=0", "PMIX_NAMESPACE=1"}, "mpirun rank 4 is not below the job size 4"},
		{[]string{"OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=4", "OMPI_COMM_WORLD_LOCAL_RANK=0"}, "mpirun set no job id"},
		{[]string{"OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=4", "PMIX_NAMESPACE=1"}, "OMPI_COMM_WORLD_LOCAL_RANK is not set"},
		{[]string{"SLURM_PROCID=1", "SLURM_STEP_ID=0", "SLURM_NTASKS=2", "SLURM_LOCALID=0"}, "SLURM_JOB_ID is not set"},
		{[]string{"SLURM_PROCID=1", "SLURM_STEP_ID=0", "SLURM_NTASKS=two", "SLURM_LOCALID=0", "SLURM_JOB_ID=1"}, `SLURM_NTASKS="two" is not a number`},
		{[]string{"SLURM_PROCID=1", "SLURM_STEP_ID=0", "SLURM_NTASKS=2", "SLURM_LOCALID=0", "SLURM_JOB_ID=1",
			"SLURM_STEP_NODELIST=n[3-1]"}, `range "3-1" is descending`},
		{[]string{"SLURM_PROCID=1", "SLURM_STEP_ID=0", "SLURM_NTASKS=2", "SLURM_LOCALID=0", "SLURM_JOB_ID=1",
			"SLURM_STEP_TASKS_PER_NODE=1(x2)", "SLURM_NODEID=2"}, "lists 2 nodes"},
		{[]string{"SLURM_PROCID=1", "SLURM_STEP_ID=0", "SLURM_NTASKS=2", "SLURM_LOCALID=0", "SLURM_JOB_ID=1",
			"SLURM_STEP_TASKS_PER_NODE=2(x"}, "bad tasks-per-node list"},
		{[]string{"RANK=0", "WORLD_SIZE=2", "LOCAL_RANK=0", "MASTER_ADDR=h"}, "set both or neither"},
		{[]string{"RANK=0", "WORLD_SIZE=2", "LOCAL_RANK=0", "MASTER_ADDR=h", "MASTER_PORT=http"}, `MASTER_PORT="http" is not a number`},
		{[]string{"RANK=0", "WORLD_SIZE=2"}, "LOCAL_RANK is not set"},
	} {
		_, err := Detect(fakeEnv(c.env...))
		if err == nil || !errors.Is(err, ErrEnv) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want ErrEnv with %q", c.env, err, c.want)
		}
	}
}

func TestExpandHostlist(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"n1", []string{"n1"}},
		{"node[01-03,07],gpu5", []string{"node01", "node02", "node03", "node07", "gpu5"}},
		{"n[9-11]", []string{"n9", "n10", "n11"}},
		{"n[098-100]", []string{"n098", "n099", "n100"}},
		{"r[1-2]n[1-2]", []string{"r1n1", "r1n2", "r2n1", "r2n2"}},
		{"a,b[1,3]-ib,c", []string{"a", "b1-ib", "b3-ib", "c"}},
		{"[1-2]", []string{"1", "2"}},
		{"n-1.example.org", []string{"n-1.example.org"}},
	} {
		got, err := expandHostlist(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("expandHostlist(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"n[1-", "n]", "n[a-b]", "n[3-1]", "a,,b", "n[]", "n[0-99999999]", "n[[1]]", "n[1--2]"} {
		if got, err := expandHostlist(bad); !errors.Is(err, errHostlist) {
			t.Errorf("expandHostlist(%q) = %q, %v; want a hostlist error", bad, got, err)
		}
	}
}

func TestExpandCounts(t *testing.T) {
	got, err := expandCounts("2(x3),1,4(x1)")
	if want := []int{2, 2, 2, 1, 4}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("expandCounts = %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"", "x", "2(x0)", "2(x", "-1", "1(x99999999)"} {
		if _, err := expandCounts(bad); err == nil {
			t.Errorf("expandCounts(%q) succeeded", bad)
		}
	}
}
