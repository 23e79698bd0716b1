package bench

import (
	"bytes"
	"cmp"
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// peerSources are the Open MPI programs of bench/peers, carried in every
// binary that links this package, so "plexus bench" compiles them where it
// runs: a host with Open MPI needs no source tree to compare with it.
//
//go:embed peers/*.c peers/*.h
var peerSources embed.FS

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

// buildPeers compiles the peer programs progs (names of bench/peers/*.c)
// with mpicc -O2 from the embedded sources into dir, one executable each,
// named as the program. It returns an error wrapping errSkipped when mpicc
// or mpirun is missing, and the compiler's output when a build fails.
func buildPeers(ctx context.Context, dir string, progs []string) error {
	if err := PeersMissing(); err != nil {
		return fmt.Errorf("%w: %v", errSkipped, err)
	}
	src := filepath.Join(dir, "peers-src")
	if err := writePeerSources(src); err != nil {
		return err
	}
	mpicc := cmp.Or(os.Getenv("MPICC"), "mpicc")
	for _, p := range progs {
		cmd := exec.CommandContext(ctx, mpicc, "-O2", "-Wall", "-o", filepath.Join(dir, p), filepath.Join(src, p+".c"))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("bench: compiling peer %s with %s: %w\n%s", p, mpicc, err, out.Bytes())
		}
	}
	return nil
}

// BuildPeer compiles the peer program name (bench/peers/NAME.c) with
// mpicc into dir and returns the executable's path: for the commands that
// run a peer under mpirun themselves (plexus bench rail). Check
// PeersMissing first; a missing Open MPI is an error here.
func BuildPeer(ctx context.Context, dir, name string) (string, error) {
	if err := buildPeers(ctx, dir, []string{name}); err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}

// writePeerSources writes every embedded peer source file into dir.
func writePeerSources(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("bench: peer sources: %w", err)
	}
	files, err := fs.Glob(peerSources, "peers/*")
	if err != nil {
		return err
	}
	for _, f := range files {
		b, err := peerSources.ReadFile(f)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644)
		}
		if err != nil {
			return fmt.Errorf("bench: peer sources: %w", err)
		}
	}
	return nil
}

// skipNote is the note results carry when Open MPI was asked for but
// could not run: err wraps errSkipped.
func skipNote(err error) string {
	return fmt.Sprintf("openmpi not run: %s; Plexus alone", strings.TrimPrefix(err.Error(), errSkipped.Error()+": "))
}
