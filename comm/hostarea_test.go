package comm

import (
	"fmt"
	"testing"
)

// TestGroupHosts: ranks group by host, hosts in the order of their lowest
// rank, ranks in increasing order within each.
func TestGroupHosts(t *testing.T) {
	for _, c := range []struct {
		hosts []string
		want  string
	}{
		{[]string{"a", "a", "b", "b"}, "[[0 1] [2 3]]"},
		{[]string{"b", "a", "b", "c", "a"}, "[[0 2] [1 4] [3]]"},
		{[]string{"x"}, "[[0]]"},
		{[]string{"a", "b", "c"}, "[[0] [1] [2]]"},
	} {
		if got := fmt.Sprint(groupHosts(c.hosts)); got != c.want {
			t.Errorf("groupHosts(%q) = %s, want %s", c.hosts, got, c.want)
		}
	}
}

// TestHostAreaOneHost: a world on one host (here in-process, which Join
// did not make) is one host, and has no host area.
func TestHostAreaOneHost(t *testing.T) {
	ws, _ := twinWorlds(t, 3, Config{})
	if got := fmt.Sprint(ws[1].Hosts()); got != "[[0 1 2]]" {
		t.Errorf("Hosts = %s, want [[0 1 2]]", got)
	}
	if a, ok := ws[1].HostArea(5); a != nil || ok {
		t.Errorf("HostArea on one host = %v, %v; want nil, false", a, ok)
	}
}
