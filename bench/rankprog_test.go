package bench

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRankCommandGiven(t *testing.T) {
	src := ""
	given := []string{"/opt/plexus", "bench", "p2p", "rank"}
	got, err := rankCommand(context.Background(), given, &src, "./bench/p2pprog", t.TempDir(), false)
	if err != nil || !slices.Equal(got, given) || src != "" {
		t.Errorf("%q, %v, src %q: want the given command, nothing built", got, err, src)
	}
}

// TestRankCommandBuilds builds the rank program from source with and
// without the plexus binary's profile, and reads which it was back.
func TestRankCommandBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program twice")
	}
	for _, noPGO := range []bool{false, true} {
		src := ""
		got, err := rankCommand(context.Background(), nil, &src, "./bench/p2pprog", t.TempDir(), noPGO)
		if err != nil || len(got) != 1 {
			t.Fatalf("%q, %v", got, err)
		}
		if _, err := os.Stat(filepath.Join(src, profile)); err != nil {
			t.Errorf("module at %q has no profile: %v", src, err)
		}
		if pgo := builtWithPGO(got[0]); pgo == noPGO {
			t.Errorf("noPGO %v: built with a profile %v", noPGO, pgo)
		}
	}
}

func TestBuiltWithPGONotAGoProgram(t *testing.T) {
	script := filepath.Join(t.TempDir(), "rank.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{script, filepath.Join(t.TempDir(), "missing"), "no-such-program-on-the-path"} {
		if builtWithPGO(p) {
			t.Errorf("%s: built with a profile", p)
		}
	}
}

// TestPeerSources: the binary carries every C program a plan can ask
// for, with the headers they include.
func TestPeerSources(t *testing.T) {
	dir := t.TempDir()
	if err := writePeerSources(dir); err != nil {
		t.Fatal(err)
	}
	want := []string{"am.c", "gups.c", "common.h", "window.h"}
	for _, p := range peerProgs {
		if !p.mt {
			want = append(want, p.name+".c")
		}
	}
	for _, f := range want {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || len(b) == 0 {
			t.Errorf("%s: %d bytes, %v", f, len(b), err)
		}
	}
	if _, err := fs.Stat(peerSources, "peers/build.sh"); err == nil {
		t.Error("the build script is carried too")
	}
}

func TestBuildPeersWithoutMPICC(t *testing.T) {
	t.Setenv("MPICC", "no-such-mpicc")
	err := buildPeers(context.Background(), t.TempDir(), []string{"latency"})
	if PeersMissing() == nil || !errors.Is(err, errSkipped) {
		t.Fatalf("%v", err)
	}
	if note := skipNote(err); !strings.HasPrefix(note, "openmpi not run: ") || !strings.Contains(note, "not found") {
		t.Errorf("note %q", note)
	}
}

// TestBuildPeers compiles one peer from the embedded sources where Open
// MPI is installed.
func TestBuildPeers(t *testing.T) {
	if err := PeersMissing(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	if err := buildPeers(context.Background(), dir, []string{"latency", "am"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"latency", "am"} {
		if fi, err := os.Stat(filepath.Join(dir, p)); err != nil || fi.Mode()&0o111 == 0 {
			t.Errorf("%s: %v, %v", p, fi, err)
		}
	}
	err := buildPeers(context.Background(), dir, []string{"no-such-peer"})
	if err == nil || errors.Is(err, errSkipped) || !strings.Contains(err.Error(), "no-such-peer") {
		t.Errorf("a missing source: %v", err)
	}
}
