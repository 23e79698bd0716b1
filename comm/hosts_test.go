package comm

import (
	"context"
	"errors"
	"net"
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

// TestAdvertise checks the data address a rank registers: its listen
// address when that names an interface, else its address on the way to
// rank 0, else (loopback, no root) the host name.
func TestAdvertise(t *testing.T) {
	ctx := context.Background()
	name, _ := os.Hostname()
	for _, c := range []struct{ addr, root, want string }{
		{"127.0.0.1:5", "h1:7000", "127.0.0.1:5"},
		{"[::]:5", "", net.JoinHostPort(name, "5")},
		{"[::]:5", "127.0.0.1:7000", net.JoinHostPort(name, "5")},
		{"0.0.0.0:5", "[::1]:7000", net.JoinHostPort(name, "5")},
	} {
		if got, err := advertise(ctx, c.addr, c.root); err != nil || got != c.want {
			t.Errorf("advertise(%q, root %q) = %q, %v; want %q", c.addr, c.root, got, err, c.want)
		}
	}
	ip := nonLoopback(t)
	root := net.JoinHostPort(ip.String(), "7000")
	if got, want := orError(advertise(ctx, "[::]:5", root)), net.JoinHostPort(ip.String(), "5"); got != want {
		t.Errorf("advertise with root %s = %q, want %q", root, got, want)
	}
}

// nonLoopback returns an IPv4 address of this host that is neither
// loopback nor link-local, or skips.
func nonLoopback(t *testing.T) net.IP {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skipf("no interface addresses: %v", err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP
		}
	}
	t.Skip("this host has no IPv4 address but loopback")
	return nil
}

func orError(s string, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return s
}
