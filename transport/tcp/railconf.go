package tcp

import (
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/plexus-hpc/plexus/rail"
	"github.com/plexus-hpc/plexus/transport/multirail"
)

// DefaultRailMin is the shortest Data frame sent over rails when
// Config.Rails is set: rendezvous chunks are this long or longer, and
// below it a second rail saves less than the split costs.
const DefaultRailMin = 64 << 10

// railSendWindow is the most bytes of frames posted on a peer's rails
// and not yet settled (multirail.Config.Window of the sending Link).
// Enough to keep every rail busy across a round trip and a few chunks,
// and no more: a rail's share of each frame is fitted to its predicted
// backlog, and a prediction's error grows with the backlog, which the
// in-order receiver pays when a window of frames ends; it also bounds the
// copies a sender holds per peer. The receiving Link keeps the default
// window, so a single frame larger than this still passes.
const railSendWindow = 8 << 20

// railSep separates the main address from the rails' in an address book
// entry (JoinAddr); it is in no host:port.
const railSep = ";"

// localRail is one of this Endpoint's rails: its address, the network in
// which it pairs with a peer's rail, and the listener that accepts the
// peer's rail connections.
type localRail struct {
	ip  net.IP
	net *net.IPNet
	ln  net.Listener
}

// parseRails parses Config.Rails: each entry an address with its prefix
// length, as "10.252.1.1/24".
func parseRails(specs []string) ([]localRail, error) {
	var out []localRail
	for _, s := range specs {
		ip, n, err := net.ParseCIDR(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("tcp: config: rail %q: want an address with its prefix, as 10.252.1.1/24: %w", s, err)
		}
		out = append(out, localRail{ip: ip, net: n})
	}
	return out, nil
}

// JoinAddr is the address book entry of an Endpoint with rails: main, the
// Endpoint's Addr (or the address it advertises instead), followed by
// its rails' listen addresses (Endpoint.RailAddrs). With no rails it is
// main itself, so that a job without rails keeps the entries it had.
func JoinAddr(main string, rails []string) string {
	if len(rails) == 0 {
		return main
	}
	return main + railSep + strings.Join(rails, railSep)
}

// splitAddr undoes JoinAddr.
func splitAddr(entry string) (main string, rails []string) {
	f := strings.Split(entry, railSep)
	return f[0], f[1:]
}

// pairRails pairs each local rail, in order, with the first unused peer
// rail whose address lies in the local rail's network (and is not the
// local rail's own: that peer shares the host). It is pure.
func pairRails(local []localRail, remote []string) []multirail.Addr {
	used := make([]bool, len(remote))
	var out []multirail.Addr
	for _, l := range local {
		for k, r := range remote {
			host, _, err := net.SplitHostPort(r)
			ip := net.ParseIP(host)
			if err != nil || ip == nil || used[k] || !l.net.Contains(ip) || ip.Equal(l.ip) {
				continue
			}
			used[k] = true
			out = append(out, multirail.Addr{Local: l.ip.String(), Remote: r})
			break
		}
	}
	return out
}

// railProfiles returns the profile of each rail in pairs from the
// profile file (rail.File, written by plexus rail sample), matched by
// the rails' local and remote addresses, and true when it has them all;
// else false and why not.
func railProfiles(file string, pairs []multirail.Addr) ([]rail.Profile, string, bool) {
	if file == "" {
		return nil, "no profile file (Config.RailProfiles)", false
	}
	f, err := readProfiles(file)
	if err != nil {
		return nil, err.Error(), false
	}
	out := make([]rail.Profile, len(pairs))
	for i, p := range pairs {
		var ok bool
		if out[i], ok = findProfile(f, p); !ok {
			return nil, fmt.Sprintf("profile file %s has no rail %s>%s", file, p.Local, p.Remote), false
		}
	}
	return out, "profiles from " + file, true
}

func readProfiles(path string) (rail.File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return rail.File{}, err
	}
	defer fh.Close()
	return rail.ReadFile(fh)
}

// findProfile finds the rail named "local>remote" in f, comparing
// addresses without ports (a sampled rail's port was another job's).
func findProfile(f rail.File, p multirail.Addr) (rail.Profile, bool) {
	want := p.Local + ">" + hostOf(p.Remote)
	for _, q := range f.Rails {
		l, r, ok := strings.Cut(q.Name, ">")
		if ok && hostOf(l)+">"+hostOf(r) == want {
			return q, true
		}
	}
	return rail.Profile{}, false
}

func hostOf(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}

// equalProfiles are identical linear profiles, one per rail: the split
// then gives every rail the same share.
func equalProfiles(pairs []multirail.Addr) []rail.Profile {
	out := make([]rail.Profile, len(pairs))
	for i, p := range pairs {
		out[i], _ = rail.NewProfile(p.Local+">"+p.Remote, []rail.Sample{
			{Size: 4, Time: 50 * time.Microsecond},
			{Size: 8 << 20, Time: 50*time.Microsecond + 64*time.Millisecond},
		})
	}
	return out
}

// validateRails checks the rails' settings and fills in RailMin.
func (c *Config) validateRails() error {
	if _, err := parseRails(c.Rails); err != nil {
		return err
	}
	if c.RailMin < 0 {
		return fmt.Errorf("tcp: config: RailMin %d is negative", c.RailMin)
	}
	if c.RailMin == 0 {
		c.RailMin = DefaultRailMin
	}
	return nil
}
