// Package launch starts the ranks of a Plexus job and introduces them to
// each other. A rank is one process of a job; ranks may run on several
// hosts and are numbered 0 to Size-1.
//
// A program learns its place in the job with Detect and gets every rank's
// data address with Join, usually first thing in main:
//
//	info, err := launch.Detect(os.Getenv)
//	if err != nil {
//		log.Fatal(err)
//	}
//	ln, err := net.Listen("tcp", ":0") // this rank's data listener
//	if err != nil {
//		log.Fatal(err)
//	}
//	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
//	defer cancel()
//	book, err := launch.Join(ctx, info, ln.Addr().String())
//	if err != nil {
//		log.Fatal(err)
//	}
//	// book.Addrs[r] is rank r's data address; book.Secret, the job
//	// secret, authenticates the data links too.
//
// The same program then runs under any of these launchers:
//
//	plexus run -n 4 -- ./prog            (PLEXUS_RANK, PLEXUS_SIZE, ...)
//	mpirun -n 4 ./prog                   (Open MPI: OMPI_COMM_WORLD_RANK, ...)
//	srun -n 4 ./prog                     (Slurm: SLURM_PROCID, SLURM_STEP_ID, ...)
//	torchrun --nproc-per-node 4 ./prog   (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT)
//	./prog                               (a single rank)
//
// # Environment
//
// Detect tries the launchers in the order above and reports malformed or
// contradictory values (a rank not below the size, a negative or
// non-numeric value) as errors wrapping ErrEnv. PLEXUS_ROOT (rank 0's
// bootstrap address, host:port), PLEXUS_SECRET (the job secret in hex, at
// least 16 bytes) and PLEXUS_JOB override what any launcher says.
// Under srun, Info.Hosts is Slurm's compressed node list expanded:
// "node[01-03,07],gpu5" is node01 node02 node03 node07 gpu5.
//
// # Bootstrap and trust
//
// Join exchanges addresses through rank 0. Rank 0 listens on Info.Root;
// every other rank connects, proves it knows the job secret by an
// HMAC-SHA256 over a fresh challenge (the secret never crosses the
// network), and registers its rank and data address. Rank 0 proves the
// secret back, and once all ranks have registered sends each the address
// book, authenticated for that connection. Connections that fail to
// authenticate (strangers, garbage, another job) are logged and dropped,
// told nothing; the job goes on. A flood of them is bounded: each must
// register within Bootstrap.Handshake (2 s) in at most a kilobyte or so,
// at most 512 wait at once (128 from one address; beyond that the oldest
// is dropped), and a few refusals a second are logged, the rest counted.
// If ranks are missing when the context ends, rank 0's error names them.
//
// The book also carries the job secret (Book.Secret), with which the
// transports key the job's data links.
//
// plexus run gives every rank a fresh 32-byte secret and a free bootstrap
// port. mpirun and srun give neither: then rank 0 listens on a free
// loopback port and creates $TMPDIR/plexus-<job>.root (O_EXCL, mode 0600)
// holding the address and a random value from which all ranks derive the
// secret; the others poll for the file, and rank 0 removes it after the
// exchange. Whoever can read that file can join the job; only the owning
// user (and root) can, and they could attach to the ranks anyway. Files
// not owned by the user, readable by others or behind a symbolic link are
// refused. The file exists on rank 0's host only, so multi-host jobs under
// mpirun, srun or torchrun must set PLEXUS_ROOT (or MASTER_ADDR and
// MASTER_PORT) and PLEXUS_SECRET for every rank, exported rather than
// written on a command line (which every user can read in /proc), for
// instance "export PLEXUS_SECRET=$(openssl rand -hex 32); mpirun -x
// PLEXUS_ROOT=node1:7000 -x PLEXUS_SECRET ...". Under srun PLEXUS_SECRET
// is enough: srun passes the environment on, and a step on several hosts
// finds rank 0 on the step's first host at the first port Slurm reserved
// for it (SLURM_STEP_RESV_PORTS) or else at a port from 61000 up derived
// from the job and step ids, the same on every task:
//
//	export PLEXUS_SECRET=$(openssl rand -hex 32)
//	srun -N 2 -n 4 ./prog
//
// A job on several hosts without a secret fails in Join at once. The
// data links between ranks are keyed by the same secret as the
// bootstrap, whichever way it came. docs/security.md states the whole
// trust model.
// Under torchrun itself, whose agent may already listen on MASTER_PORT for
// its own store, set PLEXUS_ROOT to another port.
//
// # Starting jobs
//
// Job.Run is plexus run: it starts the ranks, locally or over ssh (or
// the command in Job.SSH, plexus run --rsh), prefixes their output lines with the rank, forwards signals, and ends
// the whole job when one rank fails. Inside a Slurm allocation
// (SlurmAllocation) plexus run runs the ranks on the allocation's hosts,
// starting those on other hosts as job steps (SrunAgent). Ranks on this host are bound to CPUs
// (Job.Bind): by default each to an equal share of the cores when they
// fit, so that GOMAXPROCS follows the share and spinning ranks do not take
// each other's CPUs; PLEXUS_HOST_CPUS tells them how many CPUs the
// launcher could use.
//
// docs/design/launch.md describes how detection, the bootstrap, the
// rendezvous file and plexus run work.
package launch
