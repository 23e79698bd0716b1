package bench

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/plexus-hpc/plexus/launch"
)

// impl runs peer programs of one implementation; its start builds them.
type impl interface {
	name() string
	run(ctx context.Context, r peerRun) ([]PeerLine, error)
}

// plexusImpl runs bench/p2pprog as plexus run does, with launch.Job.
type plexusImpl struct {
	bin       string
	transport string
	cfg       P2PConfig
}

func (p *plexusImpl) name() string { return "plexus" }

func (p *plexusImpl) run(ctx context.Context, r peerRun) ([]PeerLine, error) {
	var out bytes.Buffer
	args := append([]string{"-bench", r.prog, "-transport", p.transport}, r.args...)
	if !p.cfg.Multiple && !strings.HasSuffix(r.prog, "_mt") {
		args = append(args, "-serialized")
	}
	job := launch.Job{N: r.ranks, Prog: p.bin, Args: args, Timeout: p.cfg.Timeout, Stdout: &out, Stderr: p.cfg.Log}
	if err := job.Run(ctx); err != nil {
		return nil, fmt.Errorf("plexus %s, %d ranks: %w", r.prog, r.ranks, err)
	}
	return ParsePeerOutput(&out)
}

// buildPlexus builds bench/p2pprog from src into dir, with its default.pgo
// unless noPGO.
func buildPlexus(ctx context.Context, src, dir string, noPGO bool) (string, error) {
	bin := filepath.Join(dir, "p2pprog")
	args := []string{"build", "-o", bin}
	if noPGO {
		args = append(args, "-pgo=off")
	}
	cmd := exec.CommandContext(ctx, "go", append(args, "./bench/p2pprog")...)
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("bench: building p2pprog: %w\n%s", err, out)
	}
	return bin, nil
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

// errSkipped marks a missing Open MPI: a note, not a failure.
var errSkipped = errors.New("skipped")

// PeersMissing says why P2PConfig.Peers would run Plexus alone here: no
// mpirun, or no mpicc ($MPICC when set) on the PATH. It is nil when both
// are there.
func PeersMissing() error {
	if _, err := exec.LookPath("mpirun"); err != nil {
		return errors.New("mpirun not found (install openmpi-bin)")
	}
	mpicc := cmp.Or(os.Getenv("MPICC"), "mpicc")
	if _, err := exec.LookPath(mpicc); err != nil {
		return fmt.Errorf("%s not found (install libopenmpi-dev)", mpicc)
	}
	return nil
}

// buildPeers builds the C programs with bench/peers/build.sh into dir. It
// returns an error wrapping errSkipped when mpicc or mpirun is missing.
func buildPeers(ctx context.Context, src, dir string, log io.Writer) error {
	if err := PeersMissing(); err != nil {
		return fmt.Errorf("%w: %v", errSkipped, err)
	}
	cmd := exec.CommandContext(ctx, "sh", filepath.Join(src, "bench", "peers", "build.sh"), dir)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = log, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 {
		return fmt.Errorf("%w: %s", errSkipped, strings.TrimPrefix(strings.TrimSpace(stderr.String()), "skipped: "))
	}
	if err != nil {
		return fmt.Errorf("bench: building bench/peers: %w\n%s", err, stderr.Bytes())
	}
	return nil
}

// moduleDir finds the plexus module's source from the working directory.
func moduleDir(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "list", "-f", "{{.Dir}}", "github.com/plexus-hpc/plexus/bench").Output()
	if err != nil {
		return "", fmt.Errorf("%w: the peer programs are built from source; run inside the plexus module (go list: %v)", ErrP2PConfig, err)
	}
	return filepath.Dir(strings.TrimSpace(string(out))), nil
}
