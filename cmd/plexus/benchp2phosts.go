package main

import (
	"flag"

	"github.com/plexus-hpc/plexus/bench"
)

// p2pHosts are bench p2p's flags for ranks on other hosts, spelled as
// plexus run spells them.
type p2pHosts struct {
	hosts, hostfile, rsh, rails string
}

func (h *p2pHosts) addFlags(fs *flag.FlagSet, mpiIf *string) {
	fs.StringVar(&h.hosts, "host", "", "run the ranks on these comma-separated `HOSTS`, as plexus run --host")
	fs.StringVar(&h.hostfile, "hostfile", "", "run the ranks on the hosts of `FILE`, as plexus run --hostfile")
	fs.StringVar(&h.rsh, "rsh", "", "`CMD` that runs a command on another host as CMD HOST SHELLCMD, for both plexus and mpirun (default \"ssh -o BatchMode=yes\")")
	fs.StringVar(&h.rails, "rails", "", "with hosts, `NETWORKS` (CIDR, comma-separated) whose addresses carry extra connections between Plexus's ranks, as plexus run --rails")
	fs.StringVar(mpiIf, "mpi-if", "", "with hosts, the network Open MPI's TCP takes (btl_tcp_if_include): an interface or CIDR `NET`")
}

// apply reads the hosts and the remote shell into cfg, as plexus run
// reads its own.
func (h *p2pHosts) apply(cfg *bench.P2PConfig) error {
	hosts, err := (&runOpts{hosts: h.hosts, hostfile: h.hostfile}).hostList()
	if err != nil {
		return usagef("%v", err)
	}
	if len(hosts) == 0 && (h.rsh != "" || cfg.MPIInterface != "" || h.rails != "") {
		return usagef("--rsh, --mpi-if and --rails need --host or --hostfile")
	}
	if cfg.Rails, err = railsFlag(h.rails); err != nil {
		return err
	}
	cfg.Hosts = hosts
	cfg.SSH, err = rshCommand(h.rsh)
	return err
}
