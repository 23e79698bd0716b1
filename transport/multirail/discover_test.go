package multirail

import (
	"net"
	"reflect"
	"testing"
)

func cidr(t *testing.T, s string) *net.IPNet {
	t.Helper()
	ip, n, err := net.ParseCIDR(s)
	if err != nil {
		t.Fatal(err)
	}
	n.IP = ip // the address, with its network's mask
	return n
}

// TestPair: a rail for each peer address on a local network, from the
// local address there; none for an address on no local network or this
// host's own; only keeps the rails inside the networks given.
func TestPair(t *testing.T) {
	local := []*net.IPNet{cidr(t, "10.251.0.1/24"), cidr(t, "10.252.1.1/24"), cidr(t, "10.252.2.1/24")}
	remote := []string{"10.251.0.2:7000", "10.252.2.2:7002", "10.252.1.2:7001", "192.168.1.5:9", "10.252.1.1:5"}
	got, err := Pair(local, remote, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Addr{{"10.251.0.1", "10.251.0.2:7000"}, {"10.252.2.1", "10.252.2.2:7002"}, {"10.252.1.1", "10.252.1.2:7001"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Pair = %v, want %v", got, want)
	}
	only, err := ParseNets("10.252.0.0/16")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := Pair(local, remote, only); !reflect.DeepEqual(got, want[1:]) {
		t.Errorf("Pair within 10.252.0.0/16 = %v, want %v", got, want[1:])
	}
	if _, err := Pair(local, []string{"nonsense"}, nil); err == nil {
		t.Errorf("Pair accepted an address without a port")
	}
	if _, err := ParseNets("10.0.0.0/33"); err == nil {
		t.Errorf("ParseNets accepted a /33")
	}
}
