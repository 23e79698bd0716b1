package comm

import (
	"fmt"
	"os"
	"runtime"
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
// host name and, where Linux has one, the boot id, so that two machines
// that happen to share a name are still told apart.
func hostKey() string {
	name, err := os.Hostname()
	if err != nil {
		name = "?"
	}
	if id, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
		name += "/" + strings.TrimSpace(string(id))
	}
	return strings.Map(func(r rune) rune {
		if r == ' ' {
			return '_'
		}
		return r
	}, name)
}

// A card is what a rank registers with the launcher's bootstrap: its host
// key and its TCP address, separated by a space (neither holds one). The
// launcher carries it uninterpreted, so the address book doubles as the
// host exchange the Mux routes by.
func card(host, addr string) string { return host + " " + addr }

// readCards splits the cards of an address book into hosts and addresses.
func readCards(cards []string) (hosts, addrs []string, err error) {
	hosts, addrs = make([]string, len(cards)), make([]string, len(cards))
	for r, c := range cards {
		h, a, ok := strings.Cut(c, " ")
		if !ok || h == "" || a == "" {
			return nil, nil, fmt.Errorf("comm: rank %d registered %q, not a host and an address", r, c)
		}
		hosts[r], addrs[r] = h, a
	}
	return hosts, addrs, nil
}

// oneHost reports whether every rank runs on the same host.
func oneHost(hosts []string) bool { return !multiHost(hosts) }
