package main

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/bench"
)

func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "usage: plexus COMMAND"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"help", "frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"bench"}, "bench needs a subcommand: coll, p2p"},
		{[]string{"kv"}, "kv needs a subcommand: bench, serve"},
		{[]string{"rail", "flod"}, `unknown command "rail flod"; rail's subcommands are flood, sample`},
		{[]string{"help", "graph", "bfx"}, `unknown command "graph bfx"; graph's subcommands are bc, bfs`},
		{[]string{"tree", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"tree", "--topology", "star"}, `unknown topology "star"`},
		{[]string{"tree", "--op", "scatter"}, `unknown operation "scatter"`},
		{[]string{"tree", "--format", "png"}, `unknown format "png"`},
		{[]string{"tree", "--root", "x"}, "want a CPU id or auto"},
		{[]string{"tree", "--model", model2x10, "--cpus", "3-1"}, "range is descending"},
		{[]string{"tree", "--model", model2x10, "--cpus", "0-25"}, "cpu 20 is not in model intel_xeon_e5_v2_2x10 (its cpus are 0-19)"},
		{[]string{"tree", "--model", model2x10, "--cpus", "4-5", "--root", "3"}, "cpu 3 is not in the group 4-5"},
		{[]string{"tree", "compare", "--svg", "x.svg"}, "add --sweep"},
		{[]string{"tree", "compare", "--sweep", "--cpus", "0-3"}, "alternatives"},
		{[]string{"tree", "compare", "--sweep", "--root", "3"}, "--root cannot be used with --sweep"},
		{[]string{"tree", "compare", "--model", model2x10, "--sizes", "1-4"}, "between 2 and 20"},
		{[]string{"tree", "compare", "--model", model2x10, "--sizes", "two"}, "not a list of sizes"},
		{[]string{"machine", "extra"}, `unexpected argument "extra"`},
		{[]string{"machine", "--hwloc", epycXML, "--model", model2x10}, "give one"},
		{[]string{"tour", "--data"}, "flag needs an argument"},
		{[]string{"kv", "serve", "--tick", "-1s"}, "--tick -1s, want a positive period"},
		{[]string{"kv", "serve", "--duration", "-1s"}, "load duration -1s"},
		{[]string{"kv", "serve", "--ops", "-1"}, "-1 requests per client"},
		{[]string{"kv", "serve", "--value-size", "2000000"}, "want at most 65472 bytes together"},
		{[]string{"kv", "serve", "--crash", "7@1s"}, "--crash names rank 7, but the replicas are ranks 0..2"},
		{[]string{"kv", "serve", "--restart", "1@-1s"}, "want RANK@DURATION"},
		{[]string{"kv", "serve"}, "start it with at least 3 ranks (e.g. plexus run -n 4"},
		{[]string{"bench", "gas", "--transport", "auto"}, `transport "auto"; have tcp and shm`},
		{[]string{"bench", "kv", "--transport", "nope"}, `--transport "nope": want shm, tcp or auto`},
		{[]string{"bench", "kv", "--svg", "/nonexistent/kv"}, "--svg /nonexistent/kv: its directory"},
		{[]string{"bench", "kv", "--bench", "agree", "--pin", "--replicas", "2,100000"}, "--replicas 100000: the machine"},
		{[]string{"machine", "measure", "-o", "/nonexistent/m.json"}, "-o /nonexistent/m.json: its directory"},
		{[]string{"machine", "--model", model2x10, "--svg", "/nonexistent/m.svg"}, "--svg /nonexistent/m.svg: its directory"},
		{[]string{"tree", "-o", "/nonexistent/t.txt"}, "-o /nonexistent/t.txt: its directory"},
		{[]string{"graph", "bfs", "--root", "-5"}, "--root -5: want -1 or more"},
		{[]string{"graph", "bfs", "--batch", "0"}, "--batch 0: want 1 to 2048"},
		{[]string{"graph", "bfs", "--scale", "99"}, "--scale 99: want 1 to"},
		{[]string{"graph", "bc", "--k", "-1"}, "--k -1: want 0 or more"},
		{[]string{"uts", "--runs", "0"}, "--runs 0: want 1 or more"},
		{[]string{"run", "-n", "2", "-np", "3", "true"}, "-n and -np are one flag"},
		{[]string{"rail", "sample", "--host", "onlyone"}, "want two hosts, have 1"},
		{[]string{"bench", "p2p", "--runs", "-1"}, "-1 runs, want 0 (the default) or more"},
	} {
		out, errOut, code := plexus(t, c.args...)
		if code != exitUsage {
			t.Errorf("plexus %s: exit %d, want %d", strings.Join(c.args, " "), code, exitUsage)
		}
		if !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("plexus %s: stderr %q lacks %q (stdout %q)", strings.Join(c.args, " "), errOut, c.want, out)
		}
	}
}

func TestFailures(t *testing.T) {
	for _, args := range [][]string{
		{"machine", "--model", "/nonexistent/model"},
		{"tree", "--hwloc", "/nonexistent.xml"},
		{"tour", "--data", "/nonexistent"},
	} {
		out, errOut, code := plexus(t, args...)
		if code != exitFailure || errOut == "" {
			t.Errorf("plexus %s: exit %d, stderr %q; want 1 and a message", strings.Join(args, " "), code, errOut)
		}
		if strings.Contains(errOut, "usage:") {
			t.Errorf("plexus %s: a failure printed usage: %s", strings.Join(args, " "), errOut)
		}
		_ = out
	}
	_, errOut, _ := plexus(t, "tour", "--data", "/nonexistent")
	if !strings.Contains(errOut, "run plexus tour from the repository root") {
		t.Errorf("tour without data: %q", errOut)
	}
}

func TestHelp(t *testing.T) {
	out := mustRun(t, "help")
	wantAll(t, "help", out, "machine", "tree compare", "tour", "--hwloc FILE", "--model DIR|FILE")
	out = mustRun(t, "help", "tree", "compare")
	wantAll(t, "help tree compare", out, "usage: plexus tree compare", "-sweep", "-sizes LIST", "ratio")
	for _, cmd := range [][]string{{"machine", "-h"}, {"tree", "--help"}, {"tree", "compare", "-h"}, {"tour", "-h"}} {
		out, _, code := plexus(t, cmd...)
		if code != 0 || !strings.Contains(out, "usage: plexus "+strings.Join(cmd[:len(cmd)-1], " ")) {
			t.Errorf("plexus %s: exit %d, stdout %q", strings.Join(cmd, " "), code, out)
		}
	}
}

func TestTour(t *testing.T) {
	useBuiltRank(t)
	out, errOut, code := plexus(t, "tour", "--data", dataDir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	wantAll(t, "tour", out, "== 1. this machine", "plexus machine measure",
		"== 2. Smelt's measured 2x10", "machine   intel_xeon_e5_v2_2x10", "costs     measured",
		"== 3. 2-socket AMD Epyc 7451", "machine   x86-AMD-17h-Zen-2xEpyc-7451", "costs     estimated from topology",
		"every topology on all 96 CPUs", "best static",
		"goroutines pinned to CPUs", "team-adaptive", "chan-unpinned",
		"== 4. a 2-rank job on this machine", "msgrate", "allreduce")
	if missing := bench.PeersMissing(); (missing == nil) == strings.Contains(out, "openmpi: not run") {
		t.Errorf("Open MPI missing: %v, but the tour says:\n%s", missing, out)
	}
	if n := strings.Count(out, "every topology on all"); n != 3 && errOut == "" {
		t.Errorf("%d comparisons, want 3", n)
	}
}

// TestPlaceholders checks that every command names a flag's value the same
// way in its synopsis and in its flag list: a placeholder in capitals
// (N, LIST, DIR|FILE) or the choices (tcp|shm), never a Go type name.
func TestPlaceholders(t *testing.T) {
	for _, cmd := range allCommands() {
		synopsis, _, _ := strings.Cut(cmd.usage, "\n\n")
		cmd.flags().VisitAll(func(f *flag.Flag) {
			ph, _ := flag.UnquoteUsage(f)
			if ph == "" {
				return // a boolean flag
			}
			if !strings.Contains(ph, "|") && ph != strings.ToUpper(ph) {
				t.Errorf("plexus %s: -%s's value is shown as %q: want capitals or the choices", cmd.name, f.Name, ph)
			}
			for _, dashes := range []string{" -", "[-", " --", "[--"} {
				if i := strings.Index(synopsis, dashes+f.Name+" "); i >= 0 {
					rest := synopsis[i+len(dashes+f.Name+" "):]
					if !strings.HasPrefix(rest, ph+" ") && !strings.HasPrefix(rest, ph+"]") && !strings.HasPrefix(rest, ph+"\n") {
						t.Errorf("plexus %s: synopsis shows -%s %.20s..., its flag list %s", cmd.name, f.Name, rest, ph)
					}
				}
			}
		})
	}
}

// TestHelpGroup: help on a group of commands lists them.
func TestHelpGroup(t *testing.T) {
	out := mustRun(t, "help", "kv")
	wantAll(t, "help kv", out, "kv bench ", "kv serve ", "plexus help kv COMMAND")
}

func TestHelpHelp(t *testing.T) {
	for _, args := range [][]string{{"help", "help"}, {"-h", "help"}} {
		out := mustRun(t, args...)
		wantAll(t, "help help", out, "usage: plexus help [COMMAND]")
	}
}

// TestTourFailedSection: a section that fails (here a broken hwloc file)
// is reported, the others still run, and the tour exits 1.
func TestTourFailedSection(t *testing.T) {
	useBuiltRank(t)
	data := t.TempDir()
	if err := os.CopyFS(filepath.Join(data, tourSmelt), os.DirFS(filepath.Join(dataDir, tourSmelt))); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Join(data, tourHwloc)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, tourHwloc), []byte("<topology>"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := plexus(t, "tour", "--data", data)
	if code != exitFailure {
		t.Errorf("exit %d, want 1", code)
	}
	wantAll(t, "stderr", errOut, "plexus tour: 2-socket AMD Epyc 7451", "1 of 4 sections failed")
	wantAll(t, "stdout", out, "== 1. this machine", "machine   intel_xeon_e5_v2_2x10", "== 4. a 2-rank job")
}

// TestVersion: version, --version and -version print one line naming
// plexus and the Go that built it.
func TestVersion(t *testing.T) {
	for _, arg := range []string{"version", "--version", "-version"} {
		out := mustRun(t, arg)
		if !strings.HasPrefix(out, "plexus ") || !strings.HasSuffix(out, runtime.Version()+"\n") || strings.Count(out, "\n") != 1 {
			t.Errorf("plexus %s: %q, want one line: plexus VERSION ... %s", arg, out, runtime.Version())
		}
	}
}
