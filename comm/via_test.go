package comm

import (
	"slices"
	"testing"

	"github.com/plexus-hpc/plexus/launch"
)

func TestTransports(t *testing.T) {
	hosts := []string{"a", "a", "b", "b"}
	for _, c := range []struct {
		rank int
		mode string
		want []string
	}{
		{0, TransportAuto, []string{"self", "shm", "tcp", "tcp"}},
		{3, "", []string{"tcp", "tcp", "shm", "self"}},
		{1, TransportTCP, []string{"tcp", "self", "tcp", "tcp"}},
	} {
		if got := transports(c.rank, hosts, c.mode); !slices.Equal(got, c.want) {
			t.Errorf("transports(%d, %q, %s) = %q, want %q", c.rank, hosts, c.mode, got, c.want)
		}
	}
	var w World
	if got := w.Transport(0); got != "" {
		t.Errorf("Transport of a world Join did not make = %q, want \"\"", got)
	}
}

// TestSpansHosts: a rank listens on every interface when its job may
// have ranks on other hosts, which mpirun tells only by a local size
// below the job's.
func TestSpansHosts(t *testing.T) {
	for _, c := range []struct {
		info launch.Info
		want bool
	}{
		{launch.Info{Size: 4, LocalSize: 4}, false},
		{launch.Info{Size: 4}, false},
		{launch.Info{Size: 4, LocalSize: 2}, true},
		{launch.Info{Size: 4, LocalSize: 4, Hosts: []string{"h1", "h2"}}, true},
		{launch.Info{Size: 2, Hosts: []string{"h1", "h1"}}, false},
	} {
		if got := spansHosts(c.info); got != c.want {
			t.Errorf("spansHosts(%+v) = %v, want %v", c.info, got, c.want)
		}
	}
}
