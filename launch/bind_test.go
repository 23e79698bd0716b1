package launch

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/affinity"
)

func TestGroupCores(t *testing.T) {
	// Two cores with two hardware threads each, numbered as Linux often
	// does (siblings n and n+2), plus a CPU sysfs knows nothing about.
	core := map[int]string{0: "0/0", 1: "0/1", 2: "0/0", 3: "0/1"}
	got := groupCores([]int{0, 1, 2, 3, 7}, func(c int) (string, bool) { k, ok := core[c]; return k, ok })
	want := [][]int{{0, 2}, {1, 3}, {7}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("groupCores = %v, want %v", got, want)
	}
}

func TestBindCPUs(t *testing.T) {
	// Five cores, the first two with two hardware threads each.
	cores := [][]int{{0, 5}, {1, 6}, {2}, {3}, {4}}
	for _, c := range []struct {
		b       Bind
		local   int
		want    [][]int
		wantErr bool
	}{
		{BindAuto, 2, [][]int{{0, 5, 1, 6, 2}, {3, 4}}, false}, // 5 cores: 3 and 2
		{BindShare, 5, [][]int{{0, 5}, {1, 6}, {2}, {3}, {4}}, false},
		{BindCore, 2, [][]int{{0, 5}, {1, 6}}, false},
		{BindAuto, 6, nil, false}, // more ranks than cores: unbound
		{BindShare, 6, nil, true},
		{BindCore, 6, nil, true},
		{BindNone, 2, nil, false},
	} {
		got, err := bindCPUs(c.b, c.local, cores)
		if !slices.EqualFunc(got, c.want, slices.Equal) || (err != nil) != c.wantErr {
			t.Errorf("bindCPUs(%q, %d) = %v, %v; want %v, error %v", c.b, c.local, got, err, c.want, c.wantErr)
		}
	}
}

func TestParseBind(t *testing.T) {
	for in, want := range map[string]Bind{"auto": BindAuto, "share": BindShare, "core": BindCore, "none": BindNone} {
		if b, err := ParseBind(in); err != nil || b != want {
			t.Errorf("ParseBind(%q) = %q, %v", in, b, err)
		}
	}
	if _, err := ParseBind("socket"); err == nil || !strings.Contains(err.Error(), "socket") {
		t.Errorf("ParseBind(socket): %v, want an error naming it", err)
	}
	if err := (&Job{N: 1, Prog: "x", Bind: "socket"}).Validate(); err == nil {
		t.Error("Validate accepted binding \"socket\"")
	}
}

// printAffinity is the helper mode "affinity": it prints the CPUs the
// process may use, and (on stderr) what PLEXUS_HOST_CPUS says.
func printAffinity() int {
	cpus, err := affinity.Allowed()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(strings.Trim(fmt.Sprint(cpus), "[]"))
	fmt.Fprintf(os.Stderr, "host cpus %s", os.Getenv("PLEXUS_HOST_CPUS"))
	return 0
}

// rankCPUs runs n helper ranks under b and returns the CPU list each
// reported, by rank.
func rankCPUs(t *testing.T, n int, b Bind) []string {
	t.Helper()
	all, _ := affinity.Allowed()
	var out, errOut lockedBuffer
	j := helperJob(n, "affinity")
	j.Bind, j.Stdout, j.Stderr = b, &out, &errOut
	if err := j.Run(context.Background()); err != nil {
		t.Fatalf("Run: %v\nstderr:\n%s", err, errOut.String())
	}
	got := make([]string, n)
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r int
		var rest string
		if _, err := fmt.Sscanf(l, "[%d]", &r); err != nil || r < 0 || r >= n {
			t.Fatalf("odd output line %q", l)
		}
		_, rest, _ = strings.Cut(l, "] ")
		got[r] = rest
	}
	for r := range n {
		if want := fmt.Sprintf("[%d] host cpus %d", r, len(all)); !strings.Contains(errOut.String(), want) {
			t.Errorf("rank %d was not told the host's %d CPUs:\n%s", r, len(all), errOut.String())
		}
	}
	return got
}

func TestRunBindsRanks(t *testing.T) {
	cores, err := usableCores()
	if err != nil {
		t.Skip(err)
	}
	all, _ := affinity.Allowed()
	allList := strings.Trim(fmt.Sprint(all), "[]")
	if len(cores) < 2 {
		t.Skipf("%d usable cores; binding 2 ranks needs 2", len(cores))
	}
	for _, b := range []Bind{BindAuto, BindCore} {
		want, _ := bindCPUs(b, 2, cores)
		for r, cpus := range rankCPUs(t, 2, b) {
			sorted := slices.Sorted(slices.Values(want[r]))
			if w := strings.Trim(fmt.Sprint(sorted), "[]"); cpus != w {
				t.Errorf("--bind-to %q: rank %d runs on CPUs %q, want %q", b, r, cpus, w)
			}
		}
	}
	for r, cpus := range rankCPUs(t, 2, BindNone) {
		if cpus != allList {
			t.Errorf("unbound rank %d runs on CPUs %q, want all of %q", r, cpus, allList)
		}
	}
	over := helperJob(len(cores)+1, "affinity")
	over.Bind = BindCore
	if err := over.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "cores") {
		t.Errorf("binding %d ranks to %d cores: %v, want an error about cores", len(cores)+1, len(cores), err)
	}
	if auto := rankCPUs(t, len(cores)+1, BindAuto); auto[0] != allList {
		t.Errorf("auto with more ranks than cores: rank 0 runs on %q, want all of %q", auto[0], allList)
	}
}

// EqualRun cuts n items into parts runs in order, covering each item
// once, the first n%parts runs one longer.
func TestEqualRun(t *testing.T) {
	for _, tc := range []struct{ n, parts int }{{4, 2}, {5, 2}, {7, 3}, {2, 2}, {16, 5}, {1, 1}} {
		next := 0
		for i := range tc.parts {
			start, size := EqualRun(tc.n, tc.parts, i)
			want := tc.n / tc.parts
			if i < tc.n%tc.parts {
				want++
			}
			if start != next || size != want {
				t.Errorf("EqualRun(%d, %d, %d) = %d, %d; want %d, %d", tc.n, tc.parts, i, start, size, next, want)
			}
			next = start + size
		}
		if next != tc.n {
			t.Errorf("EqualRun(%d, %d, ·) covers %d items", tc.n, tc.parts, next)
		}
	}
}

// TestEqualRunPanics: parts that are not positive, or a part outside
// them, panic with the arguments instead of dividing by zero or
// answering past the end.
func TestEqualRunPanics(t *testing.T) {
	for _, c := range [][3]int{{10, 0, 0}, {10, 3, 5}, {10, 3, -1}} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "EqualRun") {
					t.Errorf("EqualRun%v: recovered %v, want a panic naming EqualRun", c, r)
				}
			}()
			EqualRun(c[0], c[1], c[2])
		}()
	}
}
