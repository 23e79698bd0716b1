package launch

import (
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"strconv"
	"strings"
)

// Slurm gives a job step no bootstrap address and no secret. A step on
// one host makes do with the rendezvous file; a step on several hosts
// takes the secret from PLEXUS_SECRET, which srun passes on from the
// environment it was started in (sbatch and salloc too), and finds rank
// 0 at a port every task computes alike from the step's own variables,
// so that nothing else has to travel.

// stepPorts is the range derived bootstrap ports come from: above Linux's
// default ephemeral range (32768-60999), where the kernel picks the local
// ports of outgoing connections, so no connection of the host's own holds
// the port a step's rank 0 wants.
const (
	stepPortLow   = 61000
	stepPortCount = 65535 - stepPortLow + 1
)

// slurmRoot fills in rank 0's bootstrap address for a step on several
// hosts that has a secret but no PLEXUS_ROOT: the first host of the step,
// where srun places task 0 under every distribution but "arbitrary", at
// the first of the ports Slurm reserved for the step
// (SLURM_STEP_RESV_PORTS, with srun --resv-ports and MpiParams=ports) or
// else at stepPort's. Rank 0 itself checks that it is on that host.
func slurmRoot(e *env, in *Info) {
	if !multiHost(in.Hosts) || e.str("PLEXUS_SECRET") == "" || e.str("PLEXUS_ROOT") != "" {
		return
	}
	port := stepPort(in.JobID)
	if resv := e.str("SLURM_STEP_RESV_PORTS"); resv != "" {
		first, _, _ := strings.Cut(strings.SplitN(resv, ",", 2)[0], "-")
		p, err := strconv.Atoi(first)
		if err != nil || p < 1 || p > 65535 {
			e.fail("SLURM_STEP_RESV_PORTS=%q does not start with a port", resv)
		}
		port = p
	}
	if node := e.num("SLURM_NODEID", 0); in.Rank == 0 && node != 0 {
		e.fail("rank 0 runs on node %d of the step (%s), not on its first, %s, where the other ranks look for it; set PLEXUS_ROOT",
			node, e.str("SLURM_STEP_NODELIST"), in.Hosts[0])
	}
	in.Root = net.JoinHostPort(in.Hosts[0], strconv.Itoa(port))
}

// stepPort derives a bootstrap port from a step's job id ("slurm-J.S"),
// the same on every task of the step and most likely different for
// steps that run at once. A port some other program holds fails the
// step's bootstrap at rank 0, with the address in the error.
func stepPort(jobID string) int {
	h := fnv.New32a()
	h.Write([]byte(jobID))
	return stepPortLow + int(h.Sum32()%stepPortCount)
}

// multiHost reports whether hosts names more than one host.
func multiHost(hosts []string) bool {
	for _, h := range hosts {
		if h != hosts[0] {
			return true
		}
	}
	return false
}

// errNoSecret is Join's error for a job on several hosts without a
// secret: the rendezvous file that would supply one is seen on one host
// only, so waiting could only end in a timeout.
var errNoSecret = errors.New("launch: a job on several hosts needs a job secret; export PLEXUS_SECRET=$(openssl rand -hex 32) before starting it")

func checkSecret(info Info) error {
	if multiHost(info.Hosts) && len(info.Secret) == 0 {
		return fmt.Errorf("%w (%s job of %d ranks on %s)", errNoSecret, info.Launcher, info.Size, strings.Join(info.Hosts, ","))
	}
	return nil
}
