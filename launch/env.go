package launch

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrEnv is wrapped by every error Detect returns: the launcher's
// variables are present but contradict each other or are malformed.
var ErrEnv = errors.New("launch: bad launcher environment")

// Launcher names, as found in Info.Launcher.
const (
	Plexus   = "plexus"
	MPIRun   = "mpirun"
	SRun     = "srun"
	TorchRun = "torchrun"
	Single   = "single"
)

// minSecret is the shortest job secret accepted from PLEXUS_SECRET: shorter
// keys make the HMAC guessable.
const minSecret = 16

// Info is what a rank learns about its job from its environment.
type Info struct {
	Rank, Size int
	// LocalRank is the rank's index among the ranks on its host;
	// LocalSize is how many ranks share the host, 0 when the launcher does
	// not say.
	LocalRank, LocalSize int
	Launcher             string // Plexus, MPIRun, SRun, TorchRun or Single
	// JobID names the job on this host; it is part of the rendezvous file's
	// name, so ranks of one job must agree on it and concurrent jobs differ.
	JobID string
	// Root is rank 0's bootstrap address (host:port); empty when rank 0
	// picks one and publishes it in a rendezvous file.
	Root   string
	Hosts  []string // the job's hosts when the launcher says, else nil
	Secret []byte   // the job secret; nil when it comes from the rendezvous file
	// RootFD, at rank 0 under plexus run, is the inherited file descriptor
	// of the bootstrap listener on Root (PLEXUS_ROOT_FD); 0 when none.
	RootFD int
	// HostCPUs is how many CPUs the launcher let this host's ranks share
	// (PLEXUS_HOST_CPUS, set by plexus run for ranks on its own host); 0
	// when unknown. A rank bound to one CPU cannot tell this from its own
	// affinity mask.
	HostCPUs int
}

// env reads variables and remembers the first malformed one, so detectors
// read straight through and check the error once.
type env struct {
	get func(string) string
	err error
}

func (e *env) str(name string) string { return e.get(name) }

// num parses a non-negative decimal variable; def is returned when unset.
func (e *env) num(name string, def int) int {
	v := e.get(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	switch {
	case err != nil:
		e.fail("%s=%q is not a number", name, v)
	case n < 0:
		e.fail("%s=%d is negative", name, n)
	}
	return n
}

// need is num for a variable the launcher always sets.
func (e *env) need(name string) int {
	if e.get(name) == "" {
		e.fail("%s is not set", name)
		return 0
	}
	return e.num(name, 0)
}

func (e *env) fail(format string, args ...any) {
	if e.err == nil {
		e.err = fmt.Errorf("%w: "+format, append([]any{ErrEnv}, args...)...)
	}
}

// Detect finds out which launcher started this process and what it said,
// reading variables through getenv (os.Getenv, or a map's lookup in tests).
// Launchers are tried in order: plexus run (PLEXUS_RANK), Open MPI's
// mpirun (OMPI_COMM_WORLD_RANK), Slurm's srun (SLURM_PROCID with
// SLURM_STEP_ID), torchrun (RANK with WORLD_SIZE); with none of them the
// process is a single rank. PLEXUS_ROOT, PLEXUS_SECRET and PLEXUS_JOB, when
// set, override what any launcher says: that is how a multi-host job under
// mpirun or srun gets a bootstrap address and a secret.
func Detect(getenv func(string) string) (Info, error) {
	e := &env{get: getenv}
	var in Info
	switch {
	case e.str("PLEXUS_RANK") != "":
		in = fromPlexus(e)
	case e.str("OMPI_COMM_WORLD_RANK") != "":
		in = fromOpenMPI(e)
	case e.str("SLURM_PROCID") != "" && e.str("SLURM_STEP_ID") != "":
		in = fromSlurm(e)
	case e.str("RANK") != "" && e.str("WORLD_SIZE") != "":
		in = fromTorch(e)
	default:
		in = Info{Size: 1, LocalSize: 1, Launcher: Single}
	}
	overrides(e, &in)
	if e.err == nil {
		e.err = in.check()
	}
	if e.err != nil {
		return Info{}, e.err
	}
	return in, nil
}

func fromPlexus(e *env) Info {
	in := Info{Launcher: Plexus, Rank: e.need("PLEXUS_RANK"), Size: e.need("PLEXUS_SIZE")}
	// A plexus run job always sets the local pair; a hand-made environment
	// without it is taken to be one host.
	in.LocalRank = e.num("PLEXUS_LOCAL_RANK", in.Rank)
	in.LocalSize = e.num("PLEXUS_LOCAL_SIZE", in.Size)
	if h := e.str("PLEXUS_HOSTS"); h != "" {
		in.Hosts = strings.Split(h, ",")
	}
	if in.Rank == 0 {
		in.RootFD = e.num("PLEXUS_ROOT_FD", 0)
	}
	in.HostCPUs = e.num("PLEXUS_HOST_CPUS", 0)
	return in
}

// overrides applies PLEXUS_ROOT, PLEXUS_SECRET and PLEXUS_JOB.
func overrides(e *env, in *Info) {
	if r := e.str("PLEXUS_ROOT"); r != "" {
		in.Root = r
	}
	if j := e.str("PLEXUS_JOB"); j != "" {
		in.JobID = j
	}
	s := e.str("PLEXUS_SECRET")
	if s == "" {
		return
	}
	key, err := hex.DecodeString(strings.TrimSpace(s))
	switch {
	case err != nil:
		e.fail("PLEXUS_SECRET is not hexadecimal: %v", err)
	case len(key) < minSecret:
		e.fail("PLEXUS_SECRET is %d bytes, want at least %d", len(key), minSecret)
	}
	in.Secret = key
}

// check rejects values no launcher would produce together.
func (in Info) check() error {
	switch {
	case in.Size < 1:
		return fmt.Errorf("%w: %s job of size %d", ErrEnv, in.Launcher, in.Size)
	case in.Rank >= in.Size:
		return fmt.Errorf("%w: %s rank %d is not below the job size %d", ErrEnv, in.Launcher, in.Rank, in.Size)
	case in.LocalSize > in.Size:
		return fmt.Errorf("%w: %s local size %d exceeds the job size %d", ErrEnv, in.Launcher, in.LocalSize, in.Size)
	case in.LocalSize > 0 && in.LocalRank >= in.LocalSize:
		return fmt.Errorf("%w: %s local rank %d is not below the local size %d", ErrEnv, in.Launcher, in.LocalRank, in.LocalSize)
	}
	return nil
}
