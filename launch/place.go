package launch

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
)

// ReadHostfile reads one host per line, optionally followed by Open MPI's
// "slots=K" to repeat it K times; '#' starts a comment. The result is
// suitable for Job.Hosts.
func ReadHostfile(r io.Reader) ([]string, error) {
	var hosts []string
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if err := checkHost(fields[0]); err != nil {
			return nil, fmt.Errorf("%w (hostfile line %d)", err, n)
		}
		slots, err := hostSlots(fields[1:])
		if err != nil {
			return nil, fmt.Errorf("launch: hostfile line %d: %w", n, err)
		}
		for range slots {
			hosts = append(hosts, fields[0])
		}
	}
	return hosts, sc.Err()
}

// ErrBadHost is wrapped when a host name is empty or could be taken for
// something else: ssh reads a name that starts with '-' as an option
// ("-oProxyCommand=..." runs a command), and blanks, control characters
// and shell punctuation belong to no host name. A host is a name or an
// address as ssh takes it: letters, digits and . - _ : (IPv6), with an
// optional user@ and %zone.
var ErrBadHost = errors.New("launch: bad host name")

// checkHost says what is wrong with host name h, if anything.
func checkHost(h string) error {
	switch {
	case h == "":
		return fmt.Errorf("%w: empty", ErrBadHost)
	case strings.HasPrefix(h, "-"):
		return fmt.Errorf("%w %q: starts with '-'", ErrBadHost, h)
	case strings.IndexFunc(h, func(c rune) bool { return c <= ' ' || c == 0x7f }) >= 0:
		return fmt.Errorf("%w %q: blank or control character", ErrBadHost, h)
	}
	if i := strings.IndexFunc(h, func(c rune) bool { return !hostRune(c) }); i >= 0 {
		return fmt.Errorf("%w %q: %q belongs to no host name or address", ErrBadHost, h, []rune(h[i:])[0])
	}
	return nil
}

// hostRune reports whether c may appear in a host as checkHost takes it.
func hostRune(c rune) bool {
	return c < 0x80 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".-_:@%", c))
}

func hostSlots(opts []string) (int, error) {
	slots := 1
	for _, o := range opts {
		v, ok := strings.CutPrefix(o, "slots=")
		n, err := strconv.Atoi(v)
		if !ok || err != nil {
			return 0, fmt.Errorf("want \"host [slots=K]\", got option %q", o)
		}
		if n < 1 || n > maxRanks {
			return 0, fmt.Errorf("%q: want 1 to %d slots", o, maxRanks)
		}
		slots = n
	}
	return slots, nil
}

// placement is where each rank runs and what it is told.
type placement struct {
	hosts      []string // per rank; "" is this host
	localRank  []int
	localSize  []int
	distinct   []string // hosts in order of first use, nil for a local job
	root       string   // rank 0's bootstrap address
	remoteRoot bool     // rank 0 is on another host, so its port was guessed
	// rootLn holds a local rank 0's bootstrap port from the moment it is
	// chosen; rank 0 inherits it (PLEXUS_ROOT_FD), so no other process can
	// take the port in between. Nil when rank 0 is remote.
	rootLn *net.TCPListener
}

// place assigns n ranks to hosts: rank r to hosts[r] while there are
// enough, else in equal contiguous blocks. Hosts naming this machine run
// without ssh.
func place(n int, hosts []string) (placement, error) {
	p := placement{hosts: make([]string, n), localRank: make([]int, n), localSize: make([]int, n)}
	for r := range n {
		if len(hosts) > 0 {
			h := hosts[r*len(hosts)/n]
			if n <= len(hosts) {
				h = hosts[r]
			}
			if !isLocal(h) {
				p.hosts[r] = h
			}
		}
	}
	count := map[string]int{}
	for r, h := range p.hosts {
		p.localRank[r] = count[h]
		count[h]++
	}
	for r, h := range p.hosts {
		p.localSize[r] = count[h]
		if len(count) > 1 && !slices.Contains(p.distinct, displayHost(h)) {
			p.distinct = append(p.distinct, displayHost(h))
		}
	}
	var err error
	p.root, p.remoteRoot, p.rootLn, err = rootAddr(p.hosts)
	return p, err
}

// rootAddr picks rank 0's bootstrap address. On this host it listens on a
// free port and returns the listener, which rank 0 inherits. For a rank 0
// on another host nothing can be probed, so a random high port is chosen
// and a collision fails the job at bootstrap.
func rootAddr(hosts []string) (string, bool, *net.TCPListener, error) {
	remote := slices.ContainsFunc(hosts, func(h string) bool { return h != "" })
	bind, name := "127.0.0.1:0", "127.0.0.1"
	if remote {
		bind, name = ":0", displayHost("")
	}
	if hosts[0] != "" {
		return net.JoinHostPort(hosts[0], strconv.Itoa(49152+rand.IntN(16000))), true, nil, nil
	}
	ln, err := net.Listen("tcp", bind)
	if err != nil {
		return "", false, nil, fmt.Errorf("launch: finding a free port: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	return net.JoinHostPort(name, strconv.Itoa(port)), false, ln.(*net.TCPListener), nil
}

// isLocal reports whether a host name means this machine.
func isLocal(h string) bool {
	if h == "localhost" || h == "127.0.0.1" || h == "::1" {
		return true
	}
	me, err := os.Hostname()
	return err == nil && (h == me || strings.HasPrefix(me, h+"."))
}

func displayHost(h string) string {
	if h != "" {
		return h
	}
	me, err := os.Hostname()
	if err != nil {
		return "localhost"
	}
	return me
}
