package tcp

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/rail"
	"github.com/plexus-hpc/plexus/transport/frame"
	"github.com/plexus-hpc/plexus/transport/multirail"
)

func flatProfile(t *testing.T, name string, per time.Duration) rail.Profile {
	t.Helper()
	p, err := rail.NewProfile(name, []rail.Sample{{Size: 4, Time: per}, {Size: 1 << 20, Time: 2 * per}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMergeProfiles: fresh samples replace the cached entries of the same
// rails (matched without ports), are named without ports, and leave the
// other rails' entries as they were.
func TestMergeProfiles(t *testing.T) {
	have := []rail.Profile{
		flatProfile(t, "10.0.1.1>10.0.1.2:4000", time.Millisecond),
		flatProfile(t, "10.0.2.1>10.0.2.2", 2*time.Millisecond),
		flatProfile(t, "10.0.3.1>10.0.3.2:1", 3*time.Millisecond),
	}
	pairs := []multirail.Addr{{Local: "10.0.1.1", Remote: "10.0.1.2:5555"}, {Local: "10.0.9.1", Remote: "10.0.9.2:6"}}
	fresh := []rail.Profile{flatProfile(t, "x", 7*time.Millisecond), flatProfile(t, "y", 9*time.Millisecond)}
	got := mergeProfiles(have, pairs, fresh)
	want := map[string]time.Duration{
		"10.0.1.1>10.0.1.2":   7 * time.Millisecond,
		"10.0.9.1>10.0.9.2":   9 * time.Millisecond,
		"10.0.2.1>10.0.2.2":   2 * time.Millisecond,
		"10.0.3.1>10.0.3.2:1": 3 * time.Millisecond,
	}
	if len(got) != len(want) {
		t.Fatalf("%d rails after merging, want %d: %+v", len(got), len(want), got)
	}
	for _, p := range got {
		if w, ok := want[p.Name]; !ok || p.Samples[0].Time != w {
			t.Errorf("rail %q first sample %v; want %v (present: %v)", p.Name, p.Samples[0].Time, w, ok)
		}
	}
}

// TestCacheRefusesAForeignFile: a file at the cache's path that is not a
// profile file is left as it was.
func TestCacheRefusesAForeignFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(path, []byte("my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pairs := []multirail.Addr{{Local: "10.0.1.1", Remote: "10.0.1.2:5"}}
	if _, err := cacheProfiles(path, pairs, []rail.Profile{flatProfile(t, "x", time.Millisecond)}); err == nil {
		t.Error("a file that is not a profile file was taken for a cache")
	}
	if b, _ := os.ReadFile(path); string(b) != "my notes\n" {
		t.Errorf("the file became %q", b)
	}
}

// TestRailsProfileCache: a job whose profile file does not exist samples
// its rails at first contact and writes them there; the next job between
// the same addresses reads them instead of sampling.
func TestRailsProfileCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.json")
	for job, want := range []string{"sampled at first contact", "profiles from " + path} {
		rec := newReceived()
		var sink logSink
		eps := railJob(t, 2, rec, func(c *Config) {
			if c.Rank == 0 {
				c.RailProfiles, c.Logger = path, sink.Logger()
			}
		})
		const n = 1 << 20
		if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Data, Seq: 5, Aux: n}, pattern(n, 5)); err != nil {
			t.Fatal(err)
		}
		waitFrames(t, rec, 1)
		checkOnce(t, rec, map[[2]uint64]bool{{5, n}: true})
		sink.waitFor(t, want)
		for _, ep := range eps {
			ep.Close()
		}
		f, err := readProfiles(path)
		if err != nil {
			t.Fatalf("job %d: the cache: %v", job, err)
		}
		if len(f.Rails) != 2 {
			t.Errorf("job %d: the cache has %d rails, want the job's 2", job, len(f.Rails))
		}
	}
}
