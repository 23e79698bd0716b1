package comm

import (
	"net"
	"strings"
	"testing"
)

// TestRailsFrom checks how PLEXUS_RAILS becomes the endpoint's rails:
// networks become this host's addresses in them, each with its own
// prefix, addresses stay, networks without one of this host's addresses
// give none, and garbage is refused.
func TestRailsFrom(t *testing.T) {
	have := func() ([]net.Addr, error) {
		var out []net.Addr
		for _, s := range []string{"10.0.0.5/8", "10.252.1.1/24", "10.252.2.1/24"} {
			ip, n, _ := net.ParseCIDR(s)
			out = append(out, &net.IPNet{IP: ip, Mask: n.Mask})
		}
		return out, nil
	}
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "PLEXUS_RAILS" {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"10.252.2.0/24, 10.252.1.0/24", "10.252.2.1/24,10.252.1.1/24"},
		{"10.252.3.0/24,10.252.1.0/24", "10.252.1.1/24"},
		{"127.0.10.1/24,10.252.1.0/24", "127.0.10.1/24,10.252.1.1/24"},
		{"10.252.0.0/16", "10.252.1.1/24,10.252.2.1/24"},
	} {
		got, err := railsFrom(env(c.in), have)
		if err != nil || strings.Join(got, ",") != c.want {
			t.Errorf("PLEXUS_RAILS=%q: rails %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, err := railsFrom(env("10.252.1.1"), have); err == nil {
		t.Errorf("an entry without a prefix was accepted")
	}
}
