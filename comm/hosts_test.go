package comm

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestHostKeyNetworkNamespace checks that two processes with the same host
// name and boot id but different network namespaces (the hosts of
// testdata/cluster, or containers) are different hosts, and that one
// namespace is one host.
func TestHostKeyNetworkNamespace(t *testing.T) {
	name := func() (string, error) { return "node 1", nil }
	boot := func(string) ([]byte, error) { return []byte("b00t\n"), nil }
	ns := func(link string) func(string) (string, error) {
		return func(string) (string, error) { return link, nil }
	}
	a := keyOf(name, boot, ns("net:[4026531840]"))
	b := keyOf(name, boot, ns("net:[4026532178]"))
	if a == b {
		t.Errorf("namespaces net:[4026531840] and net:[4026532178] share key %q", a)
	}
	if again := keyOf(name, boot, ns("net:[4026531840]")); again != a {
		t.Errorf("one namespace, keys %q and %q", a, again)
	}
	if want := "node_1/b00t/net:[4026531840]"; a != want {
		t.Errorf("key %q, want %q", a, want)
	}
	none := func(string) (string, error) { return "", errors.New("no /proc") }
	noFile := func(string) ([]byte, error) { return nil, errors.New("no /proc") }
	if k := keyOf(name, noFile, none); k != "node_1" {
		t.Errorf("without /proc: key %q, want the host name alone", k)
	}
}

// TestHostKeyThisProcess checks that hostKey names this process's network
// namespace where /proc has it, and holds no blank (cards are split on
// blanks).
func TestHostKeyThisProcess(t *testing.T) {
	k := hostKey()
	if strings.ContainsAny(k, " \t\n") {
		t.Errorf("hostKey %q holds a blank", k)
	}
	if ns, err := os.Readlink("/proc/self/ns/net"); err == nil && !strings.HasSuffix(k, "/"+ns) {
		t.Errorf("hostKey %q does not end with the network namespace %q", k, ns)
	}
}
