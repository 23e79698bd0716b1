package main

import (
	"net"
	"strings"
)

// railsFlag checks plexus run --rails: comma-separated networks or
// addresses in CIDR form, passed on as PLEXUS_RAILS (package comm reads
// it); empty passes nothing.
func railsFlag(v string) (string, error) {
	var out []string
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if _, _, err := net.ParseCIDR(f); err != nil {
			return "", usagef("--rails %q: want networks in CIDR form, such as 10.252.1.0/24,10.252.2.0/24", f)
		}
		out = append(out, f)
	}
	return strings.Join(out, ","), nil
}
