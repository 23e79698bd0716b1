package launch

import (
	"net"
	"strings"
)

// fromOpenMPI reads Open MPI's mpirun variables. The job id comes from, in
// order: OMPI_MCA_ess_base_jobid (Open MPI 1.x to 4.x set it to the
// numeric job id), PMIX_NAMESPACE (the namespace every rank of a job
// shares: the job id again in 4.x, "prterun-<host>-<pid>@1" in 5.x) and
// the job family at the front of OMPI_MCA_orte_hnp_uri
// ("1137704960.0;tcp://..."). All three are the same on every rank of one
// mpirun and differ between concurrent mpiruns on a host.
func fromOpenMPI(e *env) Info {
	in := Info{
		Launcher:  MPIRun,
		Rank:      e.need("OMPI_COMM_WORLD_RANK"),
		Size:      e.need("OMPI_COMM_WORLD_SIZE"),
		LocalRank: e.need("OMPI_COMM_WORLD_LOCAL_RANK"),
		LocalSize: e.num("OMPI_COMM_WORLD_LOCAL_SIZE", 0),
	}
	in.JobID = firstSet(e.str("OMPI_MCA_ess_base_jobid"), e.str("PMIX_NAMESPACE"), hnpJob(e.str("OMPI_MCA_orte_hnp_uri")))
	if in.JobID == "" {
		e.fail("mpirun set no job id (OMPI_MCA_ess_base_jobid, PMIX_NAMESPACE, OMPI_MCA_orte_hnp_uri); set PLEXUS_JOB")
	}
	in.JobID = "ompi-" + in.JobID
	return in
}

// hnpJob returns the job family of an ORTE HNP URI such as
// "1137704960.0;tcp://192.0.2.2:37089".
func hnpJob(uri string) string {
	job, _, _ := strings.Cut(uri, ".")
	if job == uri {
		return ""
	}
	return job
}

// fromSlurm reads the variables srun gives each task of a job step. A batch
// script has SLURM_PROCID too but no step id, and is not detected here:
// its tasks are only started by srun. A step on several hosts with
// PLEXUS_SECRET gets its bootstrap address from slurmRoot.
func fromSlurm(e *env) Info {
	in := Info{
		Launcher:  SRun,
		Rank:      e.need("SLURM_PROCID"),
		Size:      e.num("SLURM_STEP_NUM_TASKS", -1),
		LocalRank: e.need("SLURM_LOCALID"),
		JobID:     "slurm-" + e.str("SLURM_JOB_ID") + "." + e.str("SLURM_STEP_ID"),
	}
	if in.Size < 0 {
		in.Size = e.need("SLURM_NTASKS") // an srun older than SLURM_STEP_NUM_TASKS
	}
	if e.str("SLURM_JOB_ID") == "" {
		e.fail("SLURM_JOB_ID is not set")
	}
	hosts, err := expandHostlist(firstSet(e.str("SLURM_STEP_NODELIST"), e.str("SLURM_NODELIST")))
	if err != nil {
		e.fail("SLURM_STEP_NODELIST: %v", err)
	}
	in.Hosts = hosts
	if per := e.str("SLURM_STEP_TASKS_PER_NODE"); per != "" {
		in.LocalSize = tasksOnNode(e, per, e.num("SLURM_NODEID", 0))
	}
	slurmRoot(e, &in)
	return in
}

// tasksOnNode picks node's entry from Slurm's tasks-per-node syntax,
// "2(x3),1" meaning 2, 2, 2, 1.
func tasksOnNode(e *env, per string, node int) int {
	counts, err := expandCounts(per)
	switch {
	case err != nil:
		e.fail("SLURM_STEP_TASKS_PER_NODE: %v", err)
	case node >= len(counts):
		e.fail("SLURM_NODEID=%d but SLURM_STEP_TASKS_PER_NODE=%q lists %d nodes", node, per, len(counts))
	default:
		return counts[node]
	}
	return 0
}

// fromTorch reads torchrun's variables. torchrun gives no secret; the
// rendezvous file supplies one for ranks on one host, and multi-host jobs
// set PLEXUS_SECRET. The job id joins TORCHELASTIC_RUN_ID (often "none")
// with the master address so that concurrent jobs differ.
func fromTorch(e *env) Info {
	in := Info{
		Launcher:  TorchRun,
		Rank:      e.need("RANK"),
		Size:      e.need("WORLD_SIZE"),
		LocalRank: e.need("LOCAL_RANK"),
		LocalSize: e.num("LOCAL_WORLD_SIZE", 0),
	}
	addr, port := e.str("MASTER_ADDR"), e.str("MASTER_PORT")
	if (addr == "") != (port == "") {
		e.fail("MASTER_ADDR=%q and MASTER_PORT=%q: set both or neither", addr, port)
	}
	if addr != "" {
		e.num("MASTER_PORT", 0)
		in.Root = net.JoinHostPort(addr, port)
	}
	in.JobID = "torch-" + firstSet(e.str("TORCHELASTIC_RUN_ID"), "none")
	if in.Root != "" {
		in.JobID += "-" + in.Root
	}
	return in
}

func firstSet(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
