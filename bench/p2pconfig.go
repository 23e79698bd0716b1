package bench

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/plexus-hpc/plexus/launch"
)

// P2PConfig describes a run of P2P. The zero value runs every case over
// TCP with 2 and 4 ranks, Plexus only.
type P2PConfig struct {
	// Transport is how ranks talk: "tcp" (loopback, and between hosts),
	// "shm" (shared memory, one host) or "auto" (each implementation's
	// default path: shared memory between ranks of one host, TCP between
	// hosts; Open MPI's vader, tcp and self BTLs). Default "tcp".
	Transport string
	// Hierarchy runs Plexus's collectives with
	// collective.Config.Hierarchy: in two levels when the ranks span
	// hosts and share memory within each, so it takes transport auto.
	// Open MPI runs as ever.
	Hierarchy bool
	// Peers adds Open MPI's runs of the same cases (bench/peers). When
	// mpicc or mpirun is missing, P2P says so on Log and runs Plexus alone.
	Peers bool
	// Ranks lists the job sizes; point-to-point cases run in the smallest,
	// collectives in all. Default 2 and 4.
	Ranks []int
	// Sizes are the message sizes of latency and bandwidth, in bytes.
	// Default 1 B to 4 MiB in powers of two (1 B, 1 KiB, 1 MiB with Quick).
	Sizes []int
	// Goroutines lists the goroutine counts of the multi-goroutine cases
	// (MTBenches), which run, Plexus only, with the fewest ranks. Empty
	// (the default): no such cases. Each count is 1 to MaxGoroutines.
	Goroutines []int
	// Cases restricts the run to these programs: latency, bw, msgrate,
	// coll, latency_mt, msgrate_mt. Empty (the default): all, the last two
	// only with Goroutines.
	Cases []string
	// Quick runs few iterations and windows of 16, once: a smoke test, not
	// a measurement.
	Quick bool
	// Multiple runs Plexus's single-goroutine cases (all but the _mt ones)
	// on default worlds, which any number of goroutines may use at once.
	// Without it they run on serialized worlds (comm.Config.Serialized:
	// one goroutine at a time, which shared memory serves without locks),
	// the promise Open MPI's programs make too (MPI_Init: one thread).
	// The _mt cases always run on default worlds.
	Multiple bool
	// Rank is the command line that runs one Plexus rank (package
	// p2prank): a program and its leading arguments, to which each case's
	// options are added; plexus bench p2p passes its own binary and
	// "bench p2p rank". Empty: bench/p2pprog is built from Src with the
	// Go toolchain.
	Rank []string
	// NoPGO builds bench/p2pprog from Src without profile-guided
	// optimisation, where by default it is built with the plexus
	// binary's profile (cmd/plexus/default.pgo, made by
	// bench/p2pprog/pgo.sh); it cannot go with a Rank, which is built
	// already. Results say whether the rank program had a profile
	// (P2PResult.PGO, read from the program's build information).
	NoPGO bool
	// Runs is how many times every case runs; results are medians.
	// Default 3 (1 with Quick).
	Runs int
	// Src is the plexus module's directory, where bench/p2pprog is built
	// from when there is no Rank. Default: found with "go list" from the
	// working directory. The Open MPI programs are compiled from sources
	// carried in the binary, wherever it runs.
	Src string
	// Hosts lists the hosts the ranks run on, one entry per slot as
	// launch.ReadHostfile reads a hostfile (slots do not matter here: each
	// job's ranks go over the distinct hosts in equal contiguous blocks, so
	// the 2-rank cases run between the first two hosts and 4 ranks on two
	// hosts run 2 on each). Plexus starts them as plexus run does, through
	// SSH; Open MPI's mpirun runs on the first host through SSH and starts
	// its daemons on the others through it too (plm_rsh_agent), with ob1
	// and no binding. With transport tcp both take TCP between every two
	// ranks (Open MPI's TCP BTL), with auto shared memory within a host
	// and TCP between hosts (vader and tcp). The rank program and the
	// Open MPI programs, compiled into a temporary directory ($TMPDIR),
	// must be at the same paths on every host. Empty (the default): this
	// host. Not with transport shm.
	Hosts []string
	// SSH is the command that runs a command on one of Hosts, as
	// launch.Job.SSH (plexus run --rsh); nil means ssh -o BatchMode=yes.
	SSH []string
	// MPIInterface, with Hosts, is the network Open MPI's TCP traffic takes
	// (btl_tcp_if_include and oob_tcp_if_include: an interface name or a
	// CIDR subnet); empty leaves Open MPI's choice.
	MPIInterface string
	// Rails, with Hosts, is passed to Plexus's ranks as launch.Job.Rails
	// (plexus run --rails): networks whose addresses carry extra
	// connections between the hosts. Empty: none.
	Rails string
	// Log receives progress and notes (a skipped Open MPI); nil discards.
	Log io.Writer
	// Timeout bounds each job. Default 5 minutes.
	Timeout time.Duration
}

// transport says how each implementation is told to use one transport:
// its mpirun options select Open MPI's matching BTL, and the rank
// program's -transport flag (the same name) selects it in comm.
type transport struct {
	mpirun []string // options after mpirun -n N
	btl    string   // Open MPI's BTLs between hosts (mpiBetween); "" means tcp,self
}

var transports = map[string]transport{
	// ob1 with the TCP BTL, on loopback only, is Open MPI's TCP path here
	// (without it, shared memory would carry same-host messages).
	"tcp": {mpirun: []string{"--mca", "pml", "ob1", "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", "lo"}},
	// ob1 with the vader BTL is Open MPI's shared-memory path (vader is
	// called sm from Open MPI 5).
	"shm": {mpirun: []string{"--mca", "pml", "ob1", "--mca", "btl", "vader,self"}},
	// ob1 with vader within a host and TCP between hosts: both
	// implementations' default paths across a cluster.
	"auto": {mpirun: []string{"--mca", "pml", "ob1", "--mca", "btl", "vader,tcp,self"}, btl: "vader,tcp,self"},
}

// ErrP2PConfig reports a P2PConfig that cannot run.
var ErrP2PConfig = errors.New("bench: bad p2p config")

// withDefaults returns c with its zero fields filled in.
func (c P2PConfig) withDefaults() P2PConfig {
	if c.Transport == "" {
		c.Transport = "tcp"
	}
	if len(c.Ranks) == 0 {
		c.Ranks = []int{2, 4}
	}
	if len(c.Sizes) == 0 {
		c.Sizes = defaultSizes(c.Quick)
	}
	if c.Runs == 0 {
		c.Runs = map[bool]int{false: 3, true: 1}[c.Quick]
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	if c.Timeout == 0 {
		c.Timeout = 5 * time.Minute
	}
	return c
}

func defaultSizes(quick bool) []int {
	if quick {
		return []int{1, 1 << 10, 1 << 20}
	}
	var s []int
	for n := 1; n <= 4<<20; n <<= 1 {
		s = append(s, n)
	}
	return s
}

// Validate reports what is wrong with c, after defaults.
func (c P2PConfig) Validate() error {
	c = c.withDefaults()
	if _, ok := transports[c.Transport]; !ok {
		return fmt.Errorf("%w: transport %q; have tcp, shm and auto", ErrP2PConfig, c.Transport)
	}
	if slices.ContainsFunc(c.Ranks, func(n int) bool { return n < 2 || n > 64 }) {
		return fmt.Errorf("%w: ranks %v; each must be 2 to 64", ErrP2PConfig, c.Ranks)
	}
	if slices.ContainsFunc(c.Sizes, func(n int) bool { return n < 0 || n > 64<<20 }) {
		return fmt.Errorf("%w: sizes %v; each must be 0 to 64 MiB", ErrP2PConfig, c.Sizes)
	}
	if slices.ContainsFunc(c.Goroutines, func(n int) bool { return n < 1 || n > MaxGoroutines }) {
		return fmt.Errorf("%w: goroutines %v; each must be 1 to %d", ErrP2PConfig, c.Goroutines, MaxGoroutines)
	}
	if err := c.validateCases(); err != nil {
		return err
	}
	if c.Hierarchy && c.Transport != "auto" {
		return fmt.Errorf("%w: hierarchy over transport %s; the two levels need shared memory within each host: transport auto", ErrP2PConfig, c.Transport)
	}
	if c.NoPGO && len(c.Rank) > 0 {
		return fmt.Errorf("%w: NoPGO builds the rank program, and Rank %q is given", ErrP2PConfig, c.Rank)
	}
	if err := c.validateHosts(); err != nil {
		return err
	}
	if c.Runs < 1 {
		return fmt.Errorf("%w: %d runs, want 0 (the default) or more", ErrP2PConfig, c.Runs)
	}
	if c.Timeout < 0 {
		return fmt.Errorf("%w: timeout %v, want 0 (the default) or more", ErrP2PConfig, c.Timeout)
	}
	return nil
}

func (c P2PConfig) validateCases() error {
	for _, name := range c.Cases {
		p := slices.IndexFunc(peerProgs, func(p peerProg) bool { return p.name == name })
		if p < 0 {
			return fmt.Errorf("%w: case %q; have %s", ErrP2PConfig, name, strings.Join(progNames(), ", "))
		}
		if peerProgs[p].mt && len(c.Goroutines) == 0 {
			return fmt.Errorf("%w: case %s needs goroutine counts", ErrP2PConfig, name)
		}
	}
	return nil
}

// validateHosts checks Hosts and SSH as launch.Job checks them (a host
// name that ssh would read as an option is refused), and that Hosts go
// with transport tcp or auto.
func (c P2PConfig) validateHosts() error {
	if len(c.Hosts) > 0 && c.Transport == "shm" {
		return fmt.Errorf("%w: transport shm between %d hosts; only tcp and auto reach other hosts", ErrP2PConfig, len(distinctHosts(c.Hosts)))
	}
	job := launch.Job{N: 1, Prog: "rank", Hosts: c.Hosts, SSH: c.SSH}
	if err := job.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrP2PConfig, err)
	}
	return nil
}
