package launch_test

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/launch"
)

// A program detects its launcher and joins the job. Real programs pass
// os.Getenv; this one pretends to be rank 5 of a Slurm job step, then
// joins as a single rank.
func Example() {
	slurm := map[string]string{
		"SLURM_PROCID": "5", "SLURM_NTASKS": "7", "SLURM_LOCALID": "1", "SLURM_NODEID": "2",
		"SLURM_JOB_ID": "4242", "SLURM_STEP_ID": "0",
		"SLURM_STEP_NODELIST": "node[01-03,07],gpu5", "SLURM_STEP_TASKS_PER_NODE": "2(x3),1",
	}
	info, err := launch.Detect(func(k string) string { return slurm[k] })
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: rank %d of %d, local %d of %d, job %s, hosts %v\n",
		info.Launcher, info.Rank, info.Size, info.LocalRank, info.LocalSize, info.JobID, info.Hosts)

	alone, _ := launch.Detect(func(string) string { return "" })
	book, err := launch.Join(context.Background(), alone, "127.0.0.1:7000")
	fmt.Println(alone.Launcher, book.Addrs, err)
	// Output:
	// srun: rank 5 of 7, local 1 of 2, job slurm-4242.0, hosts [node01 node02 node03 node07 gpu5]
	// single [127.0.0.1:7000] <nil>
}
