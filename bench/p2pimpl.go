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
	args := append(append(slices.Clip(p.cmd[1:]), "-bench", r.prog, "-transport", p.transport), r.args...)
	if !p.cfg.Multiple && !strings.HasSuffix(r.prog, "_mt") {
		args = append(args, "-serialized")
	}
	job := launch.Job{N: r.ranks, Prog: p.cmd[0], Args: args, Timeout: p.cfg.Timeout, Stdout: &out, Stderr: p.cfg.Log}
	if err := job.Run(ctx); err != nil {
		return nil, fmt.Errorf("plexus %s, %d ranks: %w", r.prog, r.ranks, err)
	}
	return ParsePeerOutput(&out)
}

// mpiImpl runs the bench/peers programs under mpirun.
type mpiImpl struct {
	dir string // the built programs
	tr  transport
	cfg P2PConfig
}

func (m *mpiImpl) name() string { return "openmpi" }

func (m *mpiImpl) run(ctx context.Context, r peerRun) ([]PeerLine, error) {
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	args := []string{"--allow-run-as-root", "--oversubscribe", "-n", strconv.Itoa(r.ranks)}
	args = append(append(args, m.tr.mpirun...), filepath.Join(m.dir, r.prog))
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "mpirun", append(args, r.args...)...)
	cmd.Stdout, cmd.Stderr = &out, m.cfg.Log
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("openmpi %s, %d ranks: %w", r.prog, r.ranks, err)
	}
	return ParsePeerOutput(&out)
}
