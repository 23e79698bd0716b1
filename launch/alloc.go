package launch

import (
	"fmt"
	"strings"
)

// Allocation is the Slurm allocation a process runs in: the job of an
// sbatch script, of salloc's command or of an srun step. plexus run
// started in one without hosts of its own runs its ranks on the
// allocation's hosts, as Open MPI's mpirun does.
type Allocation struct {
	JobID string // SLURM_JOB_ID
	Nodes string // SLURM_JOB_NODELIST, as Slurm writes it ("n[1-4]")
	// Slots has a host per task slot, the allocation's nodes in order,
	// each as many times as it has slots (SLURM_TASKS_PER_NODE, else
	// SLURM_JOB_CPUS_PER_NODE, else once). It is suitable for Job.Hosts.
	Slots []string
}

// SlurmAllocation reads the allocation this process runs in through
// getenv (os.Getenv, or a map's lookup in tests); ok is false when
// SLURM_JOB_NODELIST is unset, outside any allocation. A malformed or
// contradictory variable is an error wrapping ErrEnv.
func SlurmAllocation(getenv func(string) string) (a Allocation, ok bool, err error) {
	e := &env{get: getenv}
	a.Nodes = e.str("SLURM_JOB_NODELIST")
	if a.Nodes == "" {
		return Allocation{}, false, nil
	}
	a.JobID = e.str("SLURM_JOB_ID")
	nodes, err := expandHostlist(a.Nodes)
	if err != nil {
		return Allocation{}, true, fmt.Errorf("%w: SLURM_JOB_NODELIST: %w", ErrEnv, err)
	}
	counts, name := allocCounts(e, len(nodes))
	if e.err != nil {
		return Allocation{}, true, e.err
	}
	if len(counts) != len(nodes) {
		return Allocation{}, true, fmt.Errorf("%w: %s lists %d nodes, SLURM_JOB_NODELIST=%q %d", ErrEnv, name, len(counts), a.Nodes, len(nodes))
	}
	total := 0
	for _, c := range counts {
		if total += c; total > maxRanks {
			return Allocation{}, true, fmt.Errorf("%w: %s gives more than %d slots, the most ranks a job may have", ErrEnv, name, maxRanks)
		}
	}
	for i, n := range nodes {
		for range counts[i] {
			a.Slots = append(a.Slots, n)
		}
	}
	return a, true, nil
}

// allocCounts returns the slots per node and the variable they came
// from.
func allocCounts(e *env, nodes int) ([]int, string) {
	for _, name := range []string{"SLURM_TASKS_PER_NODE", "SLURM_JOB_CPUS_PER_NODE"} {
		if v := e.str(name); v != "" {
			counts, err := expandCounts(v)
			if err != nil {
				e.fail("%s: %v", name, err)
			}
			return counts, name
		}
	}
	ones := make([]int, nodes)
	for i := range ones {
		ones[i] = 1
	}
	return ones, "SLURM_JOB_NODELIST"
}

// SrunAgent returns the Job.SSH that runs a rank on a host of the
// allocation as a job step of its own, as mpirun starts its daemons
// there: "srun --nodes=1 --ntasks=1 --nodelist=HOST --overlap --quiet --
// /bin/sh -c SHELLCMD". --overlap lets the steps share the allocation's
// CPUs with each other and with the step plexus run itself may run in.
// srun passes its standard input to the one task, so the job secret
// still travels on no command line. The command is a POSIX shell that
// receives HOST and SHELLCMD as its positional parameters.
func SrunAgent() []string {
	script := `exec srun --nodes=1 --ntasks=1 --nodelist="$1" --overlap --quiet -- /bin/sh -c "$2"`
	return []string{"sh", "-c", script, "srun"}
}

// String describes the allocation for a message: "job 7 on n[1-2] (4 slots: n1 x2, n2 x2)".
func (a Allocation) String() string {
	var parts []string
	for i := 0; i < len(a.Slots); {
		j := i
		for j < len(a.Slots) && a.Slots[j] == a.Slots[i] {
			j++
		}
		parts = append(parts, fmt.Sprintf("%s x%d", a.Slots[i], j-i))
		i = j
	}
	return fmt.Sprintf("job %s on %s (%d slots: %s)", a.JobID, a.Nodes, len(a.Slots), strings.Join(parts, ", "))
}
