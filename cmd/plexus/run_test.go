package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/launch"
)

// rankEnv makes the test binary act as a rank for "plexus run" instead of
// running tests (the TestMain re-exec pattern).
const rankEnv = "PLEXUS_CMD_TEST_RANK"

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "rail" && os.Args[2] == "flood" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) // a competing flow's end (flowExe)
	}
	if mode := os.Getenv(rankEnv); mode == "cluster" {
		os.Exit(clusterRank())
	} else if mode == "rails" {
		os.Exit(railsRank())
	} else if mode == "stranger" {
		os.Exit(strangerDial())
	} else if fault, ok := strings.CutPrefix(mode, "fault-"); ok {
		os.Exit(faultRank(fault))
	} else if mode != "" {
		os.Exit(rankMain(mode))
	}
	os.Exit(m.Run())
}

// rankMain is what a Plexus program does first: detect, join, then work.
// Mode "fail" makes rank 1 exit 3 and the other ranks sleep.
func rankMain(mode string) int {
	info, err := launch.Detect(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	book, err := launch.Join(ctx, info, fmt.Sprintf("addr-%d", info.Rank))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("rank %d of %d, book %s\n", info.Rank, info.Size, strings.Join(book.Addrs, " "))
	if mode == "fail" {
		if info.Rank == 1 {
			fmt.Fprintln(os.Stderr, "rank 1 giving up")
			return 3
		}
		time.Sleep(60 * time.Second)
	}
	return 0
}

func TestRun(t *testing.T) {
	t.Setenv(rankEnv, "join")
	t.Setenv("GORACE", "atexit_sleep_ms=0") // else each rank lingers a second under -race
	out, errOut, code := plexus(t, "run", "-n", "3", "--timeout", "30s", "--", os.Args[0], "-test.run=^$")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	slices.Sort(lines)
	for r, want := range []string{"[0] rank 0 of 3", "[1] rank 1 of 3", "[2] rank 2 of 3"} {
		if r >= len(lines) || lines[r] != want+", book addr-0 addr-1 addr-2" {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}

func TestRunRankFails(t *testing.T) {
	t.Setenv(rankEnv, "fail")
	start := time.Now()
	out, errOut, code := plexus(t, "run", "-n", "3", "--", os.Args[0], "-test.run=^$")
	if code != exitFailure {
		t.Errorf("exit %d, want %d", code, exitFailure)
	}
	wantAll(t, "stderr", errOut, "[1] rank 1 giving up\n", "plexus run: launch: rank 1 failed: exit status 3; ended ranks 0,2")
	wantAll(t, "stdout", out, "[1] rank 1 of 3") // the others may be ended before they print
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("plexus run took %v: the sleeping ranks were not killed", d)
	}
}

func TestRunUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "no program to run"},
		{[]string{"run", "-n", "0", "--", "true"}, "0 ranks"},
		{[]string{"run", "-n", "x", "true"}, `invalid value "x" for flag -n`},
		{[]string{"run", "--host", "a", "--hostfile", "f", "true"}, "not both"},
		{[]string{"run", "--host", "a,,b", "true"}, "bad host name: empty"},
		{[]string{"run", "--host", "-V", "true"}, `bad host name "-V": starts with '-'`},
		{[]string{"run", "--host", "a,-oProxyCommand=x", "true"}, `bad host name "-oProxyCommand=x"`},
		{[]string{"run", "--host", "a;reboot", "true"}, `bad host name "a;reboot": ';' belongs to no host name`},
		{[]string{"run", "--host", "h$(id)", "true"}, `bad host name "h$(id)": '$'`},
		{[]string{"run", "--bogus", "true"}, "flag provided but not defined: -bogus"},
		{[]string{"run", "./app", "-n", "2"}, "-n after the program ./app would be passed to it, not read by plexus run; write\n" +
			"  plexus run -n 2 ./app\nto give it to plexus run, or end plexus run's flags with -- to pass it to the program:\n" +
			"  plexus run -- ./app -n 2\n"},
		{[]string{"run", "--timeout", "5s", "./app", "-np=2", "-v", "--host", "a,b", "x y"}, "-np=2, --host after the program ./app"},
		{[]string{"run", "--timeout", "5s", "./app", "-np=2", "-v", "--host", "a,b", "x y"}, "plexus run --timeout 5s -np=2 --host a,b ./app -v 'x y'\n"},
		{[]string{"run", "--timeout", "5s", "./app", "-np=2", "-v", "--host", "a,b", "x y"}, "plexus run --timeout 5s -- ./app -np=2 -v --host a,b 'x y'\n"},
	} {
		out, errOut, code := plexus(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("plexus %s: exit %d, stderr %q; want %d and %q", strings.Join(c.args, " "), code, errOut, exitUsage, c.want)
		}
	}
	if out, _, code := plexus(t, "help", "run"); code != exitOK || !strings.Contains(out, "usage: plexus run -n N") {
		t.Errorf("help run: exit %d\n%s", code, out)
	}
}

// TestRunArgs checks what reaches the program: everything after it once
// "--" ended run's flags, and -np as -n.
func TestRunArgs(t *testing.T) {
	for _, c := range []struct {
		args []string
		n    int
		prog []string
	}{
		{[]string{"-n", "2", "./app", "-v", "x"}, 2, []string{"./app", "-v", "x"}},
		{[]string{"-np", "3", "./app"}, 3, []string{"./app"}},
		{[]string{"--np=4", "--", "./app", "-n", "5", "--host", "h"}, 4, []string{"./app", "-n", "5", "--host", "h"}},
		{[]string{"--", "./app", "--timeout=1s"}, 1, []string{"./app", "--timeout=1s"}},
	} {
		job, err := new(runOpts).parse(&cli{stdout: io.Discard, stderr: io.Discard, cmd: runCmd}, c.args)
		if err != nil {
			t.Errorf("run %q: %v", c.args, err)
			continue
		}
		if got := append([]string{job.Prog}, job.Args...); job.N != c.n || !slices.Equal(got, c.prog) {
			t.Errorf("run %q: %d ranks of %q, want %d of %q", c.args, job.N, got, c.n, c.prog)
		}
	}
}

// TestRunRsh checks that --rsh becomes the job's remote shell command,
// split at blanks, with "--" added for ssh only.
func TestRunRsh(t *testing.T) {
	for _, c := range []struct {
		rsh  string
		want []string
	}{
		{"", nil},
		{"testdata/cluster/agent", []string{"testdata/cluster/agent"}},
		{" ssh  -p 2222 ", []string{"ssh", "-p", "2222", "--"}},
		{"/usr/bin/ssh --", []string{"/usr/bin/ssh", "--"}},
	} {
		job, err := new(runOpts).parse(&cli{stdout: io.Discard, stderr: io.Discard, cmd: runCmd}, []string{"--rsh", c.rsh, "--host", "a,b", "-n", "2", "./app"})
		if err != nil || !slices.Equal(job.SSH, c.want) {
			t.Errorf("--rsh %q: SSH %q, %v; want %q", c.rsh, job.SSH, err, c.want)
		}
	}
	if _, errOut, code := plexus(t, "run", "--rsh", "  ", "true"); code != exitUsage || !strings.Contains(errOut, "no command") {
		t.Errorf("--rsh of blanks: exit %d, stderr %q", code, errOut)
	}
}
