package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/plexus-hpc/plexus/launch"
)

var runCmd = &command{
	name:    "run",
	summary: "start N ranks of a program, locally or over ssh, and bootstrap them",
	usage: `run -n N [--host HOSTS | --hostfile FILE] [--rsh CMD] [--bind-to share|core|none|auto] [--timeout DURATION] [--] PROG [ARGS...]

Starts N ranks of PROG, each with PLEXUS_RANK, PLEXUS_SIZE, PLEXUS_LOCAL_RANK,
PLEXUS_LOCAL_SIZE, PLEXUS_JOB, PLEXUS_ROOT (rank 0's bootstrap address) and
PLEXUS_SECRET (a fresh 32-byte job secret), which launch.Detect and
launch.Join read. Every line a rank writes is prefixed with "[rank] ", on
stdout or stderr as the rank wrote it. SIGINT and SIGTERM are forwarded to
every rank. When a rank fails, the others get SIGTERM and, after a grace
period, SIGKILL, and plexus run exits 1 naming the rank and its status.

plexus run's flags come before PROG; -np is the same as -n, as mpirun
spells it. Everything after PROG is PROG's, so a flag of plexus run's own
there (plexus run ./app -n 2) is refused rather than silently passed on:
write plexus run -n 2 ./app. To pass such a flag to PROG, end plexus run's
flags with --, as in plexus run -n 2 -- ./app -n 5.

Without --host or --hostfile every rank runs here. With them, rank r runs
on the r-th listed slot, or the hosts share the ranks in equal blocks when
there are fewer slots than ranks; hosts other than this one are reached
with "ssh -o BatchMode=yes host", which must work without a password, find
PROG on the remote PATH and run a POSIX shell. The secret travels on ssh's
standard input, never on a command line. A hostfile has one host per line,
optionally with "slots=K". --rsh CMD replaces ssh, as Open MPI's
plm_rsh_agent does: CMD is split into words at blanks and run as
CMD HOST SHELLCMD, where SHELLCMD is one shell command, as ssh takes it,
that reads the secret from standard input (plus "--" before HOST when CMD
is ssh). testdata/cluster/agent is such a command for the namespace hosts
of testdata/cluster/cluster.sh.

Inside a Slurm allocation (an sbatch script, salloc's command: where
SLURM_JOB_NODELIST is set) and without --host or --hostfile, the ranks run
on the allocation's hosts, as mpirun's do there: its nodes, each with as
many slots as SLURM_TASKS_PER_NODE gives it, and -n defaults to the number
of slots. Ranks on hosts other than this one are started as one-task job
steps, "srun --nodes=1 --ntasks=1 --nodelist=HOST --overlap", unless --rsh
names another command; plexus run says so on stderr.

Ranks on this host are bound to CPUs, as Open MPI's mpirun binds them, but
to an equal share of the cores rather than one, since a Go program runs on
several threads: with --bind-to auto (the default) local rank i gets the
i-th of equal runs of whole cores (all their hardware threads) when there
are no more ranks than cores, and stays unbound otherwise; share insists
(and fails when they do not fit); core gives each rank one core, as
mpirun's --bind-to core; none leaves every rank on all the CPUs plexus run
may use. A bound Go program's GOMAXPROCS is its share's CPU count unless
GOMAXPROCS is set. Ranks on other hosts are not bound.`,
	flags: func() *flag.FlagSet { return new(runOpts).flagSet() },
	run:   runRun,
}

type runOpts struct {
	alloc    *launch.Allocation // the Slurm allocation the ranks run in, if any
	n        int
	hosts    string
	hostfile string
	timeout  time.Duration
	bind     string
	rsh      string
	rails    string
}

func (o *runOpts) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.IntVar(&o.n, "n", 1, "number of ranks `N`")
	fs.IntVar(&o.n, "np", 1, "the same as -n `N` (mpirun's spelling)")
	fs.StringVar(&o.hosts, "host", "", "comma-separated list of `HOSTS`, one slot each")
	fs.StringVar(&o.hostfile, "hostfile", "", "`FILE` of hosts, one per line, optionally \"host slots=K\"")
	fs.StringVar(&o.rsh, "rsh", "", "`CMD` that runs a rank on another host as CMD HOST SHELLCMD (default \"ssh -o BatchMode=yes\")")
	fs.StringVar(&o.bind, "bind-to", "auto", "bind ranks on this host to CPUs (`share|core|none|auto`): a share of the cores each, one core each, none, or share when they fit")
	fs.DurationVar(&o.timeout, "timeout", 0, "end the job as failed after `DURATION` (such as 30s); 0 means no limit")
	fs.StringVar(&o.rails, "rails", "", "comma-separated `NETWORKS` (CIDR) whose addresses carry extra connections (rails) between ranks on different hosts; sets PLEXUS_RAILS")
	return fs
}

func runRun(c *cli, args []string) error {
	o := new(runOpts)
	job, err := o.parse(c, args)
	if err != nil {
		return err
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	job.Signals, job.Stdout, job.Stderr = sigs, c.stdout, c.stderr
	if o.alloc != nil {
		via := "srun on hosts other than this one"
		if o.rsh != "" {
			via = o.rsh
		}
		fmt.Fprintf(c.stderr, "plexus run: in Slurm %s: %d ranks on its hosts, started through %s\n", o.alloc, job.N, via)
	}
	return job.Run(context.Background())
}

// parse reads the flags and the program after them. Unlike other
// commands, run takes positional arguments: the program and its own.
func (o *runOpts) parse(c *cli, args []string) (launch.Job, error) {
	fs := o.flagSet()
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		writeUsage(c.stdout, c.cmd, fs)
		return launch.Job{}, err
	case err != nil:
		return launch.Job{}, &usageError{err.Error()}
	}
	if fs.NArg() == 0 {
		return launch.Job{}, usagef("no program to run: give it after the flags")
	}
	if isSet(fs, "n") && isSet(fs, "np") {
		return launch.Job{}, usagef("-n and -np are one flag, two spellings: give one")
	}
	if err := strayFlags(fs, args); err != nil {
		return launch.Job{}, err
	}
	job := launch.Job{N: o.n, Prog: fs.Arg(0), Args: fs.Args()[1:], Timeout: o.timeout}
	if job.Bind, err = launch.ParseBind(o.bind); err != nil {
		return launch.Job{}, usagef("%v", err)
	}
	if job.Hosts, err = o.hostList(); err != nil {
		return launch.Job{}, err
	}
	if job.SSH, err = rshCommand(o.rsh); err != nil {
		return launch.Job{}, err
	}
	if job.Rails, err = railsFlag(o.rails); err != nil {
		return launch.Job{}, err
	}
	if job.Hosts == nil {
		if err := o.slurm(fs, &job, os.Getenv); err != nil {
			return launch.Job{}, err
		}
	}
	if err := job.Validate(); err != nil {
		return launch.Job{}, usagef("%v", err)
	}
	return job, nil
}

func (o *runOpts) hostList() ([]string, error) {
	switch {
	case o.hosts != "" && o.hostfile != "":
		return nil, usagef("give --host or --hostfile, not both")
	case o.hosts != "":
		hosts := strings.Split(o.hosts, ",")
		for i, h := range hosts {
			hosts[i] = strings.TrimSpace(h) // "a, b" means a and b
		}
		return hosts, nil
	case o.hostfile != "":
		f, err := os.Open(o.hostfile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		hosts, err := launch.ReadHostfile(f)
		if err == nil && len(hosts) == 0 {
			err = usagef("hostfile %s lists no hosts", o.hostfile)
		}
		return hosts, err
	}
	return nil, nil
}

// slurm gives a job without hosts of its own the hosts of the Slurm
// allocation it runs in, if any: the allocation's slots, -n's default,
// and srun to start the ranks on other hosts unless --rsh says otherwise.
func (o *runOpts) slurm(fs *flag.FlagSet, job *launch.Job, getenv func(string) string) error {
	alloc, ok, err := launch.SlurmAllocation(getenv)
	if err != nil || !ok {
		return err
	}
	o.alloc, job.Hosts = &alloc, alloc.Slots
	if job.SSH == nil {
		job.SSH = launch.SrunAgent()
	}
	if !isSet(fs, "n") && !isSet(fs, "np") {
		job.N = len(alloc.Slots)
	}
	return nil
}

// isSet reports whether the command line set flag name.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// rshCommand splits --rsh's value into the words of launch.Job.SSH; ""
// means the default ssh. For ssh itself "--" is added, as the default has
// it, so that no host is read as one of ssh's options.
func rshCommand(rsh string) ([]string, error) {
	if rsh == "" {
		return nil, nil
	}
	words := strings.Fields(rsh)
	if len(words) == 0 {
		return nil, usagef("--rsh %q: no command", rsh)
	}
	if filepath.Base(words[0]) == "ssh" && words[len(words)-1] != "--" {
		words = append(words, "--")
	}
	return words, nil
}
