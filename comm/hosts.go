package comm

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// transportMode returns the transport Join uses: cfg's, else the
// environment's PLEXUS_TRANSPORT, else auto; auto means tcp where there is
// no shared-memory transport.
func transportMode(cfg string, getenv func(string) string) (string, error) {
	mode := cfg
	if mode == "" {
		mode = strings.TrimSpace(getenv("PLEXUS_TRANSPORT"))
		if !validTransport(mode) {
			return "", fmt.Errorf("comm: PLEXUS_TRANSPORT=%q, want auto, tcp or shm", mode)
		}
	}
	switch {
	case mode == "":
		mode = TransportAuto
	case !validTransport(mode):
		return "", fmt.Errorf("comm: transport %q, want auto, tcp or shm", mode)
	}
	if mode == TransportAuto && runtime.GOOS != "linux" {
		mode = TransportTCP
	}
	return mode, nil
}

// hostKey names this host for telling which ranks share its memory: the
// host name and, where Linux has them, the boot id, so that two machines
// that happen to share a name are still told apart, and the network
// namespace, so that containers or namespace "hosts" on one machine
// (testdata/cluster) talk over their network as separate hosts would.
func hostKey() string { return keyOf(os.Hostname, os.ReadFile, os.Readlink) }

// keyOf is hostKey with the system calls passed in, for tests.
func keyOf(hostname func() (string, error), readFile func(string) ([]byte, error), readlink func(string) (string, error)) string {
	name, err := hostname()
	if err != nil {
		name = "?"
	}
	if id, err := readFile("/proc/sys/kernel/random/boot_id"); err == nil {
		name += "/" + strings.TrimSpace(string(id))
	}
	if ns, err := readlink("/proc/self/ns/net"); err == nil {
		name += "/" + ns
	}
	return strings.Map(func(r rune) rune {
		if r == ' ' {
			return '_'
		}
		return r
	}, name)
}

// A card is what a rank registers with the launcher's bootstrap: its host
// key, its TCP address and its process id, separated by spaces (none
// holds one). The launcher carries it uninterpreted, so the address book
// doubles as the host exchange the mux routes by, and tells the ranks on
// a host each other's process, to watch a rank that dies before it joins
// shared memory (mux.Reach).
func card(host, addr string, pid int) string { return host + " " + addr + " " + strconv.Itoa(pid) }

// readCards splits the cards of an address book into hosts, addresses
// and process ids.
func readCards(cards []string) (hosts, addrs []string, pids []int, err error) {
	hosts, addrs, pids = make([]string, len(cards)), make([]string, len(cards)), make([]int, len(cards))
	for r, c := range cards {
		if hosts[r], addrs[r], pids[r], err = readCard(c); err != nil {
			return nil, nil, nil, fmt.Errorf("comm: rank %d registered %q: %w", r, c, err)
		}
	}
	return hosts, addrs, pids, nil
}

// readCard splits one card.
func readCard(c string) (host, addr string, pid int, err error) {
	f := strings.Split(c, " ")
	if len(f) != 3 || f[0] == "" || f[1] == "" {
		return "", "", 0, errors.New("not a host, an address and a process id")
	}
	if pid, err = strconv.Atoi(f[2]); err != nil || pid <= 0 {
		return "", "", 0, fmt.Errorf("process id %q is not a positive number", f[2])
	}
	return f[0], f[1], pid, nil
}

// oneHost reports whether every rank runs on the same host.
func oneHost(hosts []string) bool { return !multiHost(hosts) }
