package comm

import (
	"fmt"
	"net"
	"strings"
)

// railsFrom returns the rails of this rank's TCP endpoint
// (tcp.Config.Rails) from PLEXUS_RAILS, which plexus run --rails sets: a
// comma-separated list whose entries are networks in CIDR form, as
// "10.252.1.0/24", each standing for this host's interface address in
// it, or addresses with their prefix, as "10.252.1.1/24", taken as they
// are. A network in which this host has no address gives no rail, so one
// list serves every host of a job; a network that holds several of this
// host's addresses (10.252.0.0/16 around 10.252.1.1/24 and 10.252.2.1/24)
// gives a rail for each, in the prefix of its interface, so that it pairs
// with the peer's address on the same link. Unset or empty: no rails,
// one connection per peer. PLEXUS_RAIL_PROFILES, read beside it, names
// the rails' profile file (tcp.Config.RailProfiles).
func railsFrom(getenv func(string) string, ifaddrs func() ([]net.Addr, error)) ([]string, error) {
	spec := strings.TrimSpace(getenv("PLEXUS_RAILS"))
	if spec == "" {
		return nil, nil
	}
	var have []net.Addr
	var rails []string
	for _, f := range strings.Split(spec, ",") {
		f = strings.TrimSpace(f)
		ip, n, err := net.ParseCIDR(f)
		if err != nil {
			return nil, fmt.Errorf("comm: PLEXUS_RAILS entry %q: want a network or an address with its prefix, as 10.252.1.0/24: %w", f, err)
		}
		if !ip.Equal(n.IP) {
			rails = append(rails, f) // an address of this host's
			continue
		}
		if have == nil {
			if have, err = ifaddrs(); err != nil {
				return nil, fmt.Errorf("comm: PLEXUS_RAILS: listing this host's addresses: %w", err)
			}
		}
		rails = append(rails, inNet(have, n)...)
	}
	return rails, nil
}

// inNet is the addresses among have inside n, each with its own prefix.
func inNet(have []net.Addr, n *net.IPNet) []string {
	var out []string
	for _, a := range have {
		if ipn, ok := a.(*net.IPNet); ok && n.Contains(ipn.IP) {
			ones, _ := ipn.Mask.Size()
			out = append(out, fmt.Sprintf("%s/%d", ipn.IP, ones))
		}
	}
	return out
}
