package comm

// Transport names what carries this rank's messages to peer: "self" for
// this rank, TransportSHM ("shm", shared memory) for another rank on this
// host, TransportTCP ("tcp") for a rank on another host, or for every
// other rank when Config.Transport or PLEXUS_TRANSPORT is TransportTCP.
// Ranks share a host when they share its name and network namespace. The
// answer is fixed once Join returns; it is "" for a peer out of range.
func (w *World) Transport(peer int) string {
	if peer < 0 || peer >= len(w.via) {
		return ""
	}
	return w.via[peer]
}

// transports returns what reaches each rank from rank over mode, given
// every rank's host: the choice mux.Route makes.
func transports(rank int, hosts []string, mode string) []string {
	via := make([]string, len(hosts))
	for p, h := range hosts {
		switch {
		case p == rank:
			via[p] = "self"
		case mode != TransportTCP && h == hosts[rank]:
			via[p] = TransportSHM
		default:
			via[p] = TransportTCP
		}
	}
	return via
}
