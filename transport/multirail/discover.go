package multirail

import (
	"fmt"
	"net"
	"strings"
)

// Addr is one rail's two ends: the local address to bind and the peer's
// address ("ip:port") to dial.
type Addr struct {
	Local  string `json:"local"`
	Remote string `json:"remote"`
}

// LocalNets returns this host's IPv4 networks with its address in each
// (loopback and link-local ones left out): the ends its rails may have.
func LocalNets() ([]*net.IPNet, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, fmt.Errorf("multirail: listing addresses: %w", err)
	}
	var out []*net.IPNet
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			out = append(out, n)
		}
	}
	return out, nil
}

// Pair finds the rails to a peer that listens at remote ("ip:port", one
// per address of its own): one for every remote address inside one of the
// local networks, from the local address there, in remote's order. With
// only set, a rail's both addresses must lie in one of those networks
// (Config.Rails, PLEXUS_RAILS). It is pure.
func Pair(local []*net.IPNet, remote []string, only []*net.IPNet) ([]Addr, error) {
	var out []Addr
	for _, r := range remote {
		host, _, err := net.SplitHostPort(r)
		if err != nil {
			return nil, fmt.Errorf("multirail: peer address %q: %w", r, err)
		}
		ip := net.ParseIP(host)
		if ip == nil {
			return nil, fmt.Errorf("multirail: peer address %q: not an IP address", r)
		}
		for _, n := range local {
			if n.Contains(ip) && !n.IP.Equal(ip) && within(only, n.IP) && within(only, ip) {
				out = append(out, Addr{Local: n.IP.String(), Remote: r})
				break
			}
		}
	}
	return out, nil
}

func within(only []*net.IPNet, ip net.IP) bool {
	if len(only) == 0 {
		return true
	}
	for _, n := range only {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

// ParseNets parses a comma-separated list of networks in CIDR form, such
// as PLEXUS_RAILS="10.252.0.0/16,192.168.7.0/24"; empty gives none.
func ParseNets(s string) ([]*net.IPNet, error) {
	var out []*net.IPNet
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		_, n, err := net.ParseCIDR(f)
		if err != nil {
			return nil, fmt.Errorf("multirail: rails %q: %w", f, err)
		}
		out = append(out, n)
	}
	return out, nil
}
