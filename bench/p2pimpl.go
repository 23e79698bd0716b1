package bench

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plexus-hpc/plexus/launch"
)

// impl runs peer programs of one implementation; its start builds them.
type impl interface {
	name() string
	run(ctx context.Context, r peerRun) ([]PeerLine, error)
}

// plexusImpl runs the rank program (package p2prank) as plexus run does,
// with launch.Job.
type plexusImpl struct {
	cmd       []string // the program and its leading arguments (P2PConfig.Rank)
	pgo       bool     // the program was built with a profile
	transport string
	cfg       P2PConfig
}

func (p *plexusImpl) name() string { return "plexus" }

func (p *plexusImpl) run(ctx context.Context, r peerRun) ([]PeerLine, error) {
	var out bytes.Buffer
	job := launch.Job{N: r.ranks, Prog: p.cmd[0], Args: p.args(r), Timeout: p.cfg.Timeout, Stdout: &out, Stderr: p.cfg.Log,
		Hosts: spread(r.ranks, p.cfg.Hosts), SSH: p.cfg.SSH, Rails: p.cfg.Rails}
	if err := job.Run(ctx); err != nil {
		return nil, fmt.Errorf("plexus %s, %d ranks: %w", r.prog, r.ranks, err)
	}
	return ParsePeerOutput(&out)
}

// args are the rank program's arguments for run r: the case, the
// transport, -serialized unless P2PConfig.Multiple or a multi-goroutine
// case, -hierarchy for the collectives with P2PConfig.Hierarchy.
func (p *plexusImpl) args(r peerRun) []string {
	args := append(append(slices.Clip(p.cmd[1:]), "-bench", r.prog, "-transport", p.transport), r.args...)
	if !p.cfg.Multiple && !strings.HasSuffix(r.prog, "_mt") {
		args = append(args, "-serialized")
	}
	if p.cfg.Hierarchy && r.prog == "coll" {
		args = append(args, "-hierarchy")
	}
	return args
}

// mpiImpl runs the bench/peers programs under mpirun.
type mpiImpl struct {
	dir     string // the built programs
	tr      transport
	cfg     P2PConfig
	kernels map[string]kernel // of cfg.Hosts (p2pkernel.go)
	placed  map[int]bool      // rank counts whose placement was checked (p2pplace.go)
}

func (m *mpiImpl) name() string { return "openmpi" }

func (m *mpiImpl) run(ctx context.Context, r peerRun) ([]PeerLine, error) {
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	if err := m.checkPlacement(ctx, r.ranks); err != nil {
		return nil, err
	}
	out, err := m.exec(ctx, m.command(r))
	if err != nil {
		return nil, fmt.Errorf("openmpi %s, %d ranks: %w", r.prog, r.ranks, err)
	}
	return ParsePeerOutput(out)
}

// exec runs a command line, in a process group of its own (killed whole
// when ctx ends), with its standard error to the log, and returns its
// standard output.
func (m *mpiImpl) exec(ctx context.Context, words []string) (*bytes.Buffer, error) {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, words[0], words[1:]...)
	cmd.Stdout, cmd.Stderr = &out, m.cfg.Log
	inGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	return &out, cmd.Run()
}

// command is the command line of run r: mpirun here, or between hosts
// mpirun on the first host through the remote shell.
func (m *mpiImpl) command(r peerRun) []string {
	return m.mpirun(r.ranks, append([]string{filepath.Join(m.dir, r.prog)}, r.args...))
}

// mpirun is the command line that runs prog (a program and its
// arguments) as n ranks, as command says.
func (m *mpiImpl) mpirun(n int, prog []string) []string {
	args := []string{"mpirun", "--allow-run-as-root", "--oversubscribe", "-n", strconv.Itoa(n)}
	hosts := spread(n, m.cfg.Hosts)
	if hosts == nil {
		args = append(args, m.tr.mpirun...)
	} else {
		args = append(args, mpiBetween(hosts, m.ssh(), m.tr.btl, m.cfg.MPIInterface)...)
		if crowdedOn(hosts, m.kernels) {
			args = append(args, "--mca", "mpi_yield_when_idle", "1")
		}
	}
	args = append(args, prog...)
	if hosts == nil {
		return args
	}
	return onHost(m.ssh(), hosts[0], args)
}

func (m *mpiImpl) ssh() []string {
	if m.cfg.SSH == nil {
		return defaultSSH
	}
	return m.cfg.SSH
}
