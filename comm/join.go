package comm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/plexus-hpc/plexus/launch"
	"github.com/plexus-hpc/plexus/transport/shm"
	"github.com/plexus-hpc/plexus/transport/tcp"
)

// Join makes this process's world from its environment, whichever
// launcher started it (plexus run, mpirun, srun, torchrun, or none: a
// world of one), with the default Config: shared memory to the ranks on
// this host, TCP to the others, unless PLEXUS_TRANSPORT says otherwise.
func Join(ctx context.Context) (*World, error) { return JoinWith(ctx, Config{}) }

// JoinWith is Join with cfg's protocol settings and transport; its Rank
// and Size are taken from the environment. The ranks learn which of them
// share a host from the launcher's address exchange, where each registers
// its host with its TCP address (see card).
func JoinWith(ctx context.Context, cfg Config) (*World, error) {
	info, err := launch.Detect(os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("comm: join: %w", err)
	}
	mode, err := transportMode(cfg.Transport, os.Getenv)
	if err != nil {
		return nil, err
	}
	return join(ctx, cfg, info, mode)
}

// join makes the world of the rank info describes over mode's transports:
// TCP alone, or a mux of shared memory and TCP.
func join(ctx context.Context, cfg Config, info launch.Info, mode string) (*World, error) {
	cfg.Rank, cfg.Size = info.Rank, info.Size
	b := &book{ready: make(chan struct{})}
	defer close(b.ready) // empty on failure: dials fail rather than wait
	var ep *tcp.Endpoint
	tc := tcpConfig(info, b)
	tc.Logger = cfg.Logger
	if spansHosts(info) {
		rails, err := railsFrom(os.Getenv, net.InterfaceAddrs)
		if err != nil {
			return nil, err
		}
		tc.Rails, tc.RailProfiles = rails, os.Getenv("PLEXUS_RAIL_PROFILES")
	}
	remote := openTCP(tc, func(e *tcp.Endpoint) { ep = e })
	m := newMux(muxConfig{Rank: info.Rank, Size: info.Size, Remote: remote, Local: shmOpener(info, cfg.Serialized, cfg.Logger)})
	open := m.Open
	if mode == TransportTCP {
		open = remote
	}
	w, err := openWorld(cfg, open)
	if err != nil {
		return nil, err
	}
	hosts, err := exchange(ctx, launch.Bootstrap{Logger: cfg.Logger}, info, ep, b)
	if err == nil {
		cpus := hostCPUs(info)
		if w.crowded = crowded(hosts, info.Rank, cpus); w.crowded {
			bound := bindToHostShare(hosts, info.Rank, cpus, os.Getenv, cfg.Logger)
			shareProcs(hosts, info.Rank, cpus, bound, os.Getenv)
		}
		w.via = transports(info.Rank, hosts, mode)
		w.hosts = hosts
	}
	if err == nil && mode != TransportTCP {
		m.pids = b.pids // before Route: read once the routes are (mux.Reach)
		err = route(m, mode, hosts)
	}
	if err == nil {
		w.adoptDirect() // the routes are known: maybe one transport reaches all
		w.adoptSerial() // the mux is passive now if every rank is local
	}
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("comm: join: %w", err)
	}
	return w, nil
}

// exchange runs the launcher's address exchange with this rank's card,
// fills b with the TCP addresses and process ids and returns every
// rank's host.
func exchange(ctx context.Context, bs launch.Bootstrap, info launch.Info, ep *tcp.Endpoint, b *book) ([]string, error) {
	addr, err := advertise(ctx, ep.Addr(), info.Root)
	if err != nil {
		return nil, err
	}
	bk, err := joinBook(ctx, bs, info, card(hostKey(), tcp.JoinAddr(addr, ep.RailAddrs()), os.Getpid()))
	if err != nil {
		return nil, err
	}
	hosts, addrs, pids, err := readCards(bk.Addrs)
	b.addrs, b.pids = addrs, pids
	b.secret = bk.Secret
	return hosts, err
}

// crowded reports whether the machine under rank's host runs more of the
// ranks in hosts than it has cpus. Hosts that share a kernel (namespace
// hosts, containers: one boot id) share its CPUs, so their ranks count
// together even though they talk over their networks.
func crowded(hosts []string, rank, cpus int) bool {
	return countRanks(hosts, func(h string) bool { return machineOf(h) == machineOf(hosts[rank]) }) > cpus
}

// machineOf is the part of a host key (hostKey) that names the kernel:
// its boot id where the key has one, else the whole key.
func machineOf(key string) string {
	parts := strings.Split(key, "/")
	if len(parts) >= 2 && len(parts[1]) == 36 && strings.Count(parts[1], "-") == 4 {
		return parts[1]
	}
	return key
}

// route has m send to the ranks on this host over shared memory; with
// TransportSHM they must be all the ranks.
func route(m *mux, mode string, hosts []string) error {
	if mode == TransportSHM && !oneHost(hosts) {
		return fmt.Errorf("transport shm, but the ranks run on several hosts: %q", hosts)
	}
	return m.Route(hosts)
}

// shmOpener opens the shared-memory transport of the ranks on one host,
// after removing the segments of dead jobs. The peer timeout is TCP's: a
// dead process is noticed within a heartbeat anyway, and a live rank busy
// with a million goroutines may beat late. A serialized world whose ranks
// all share the host gets a passive endpoint (World.adoptSerial).
func shmOpener(info launch.Info, serialized bool, logger *slog.Logger) func(rank, size int) opener {
	return func(rank, size int) opener {
		shm.CleanStale("")
		return openSHM(shm.Config{Rank: rank, Size: size, JobID: jobID(info), PeerTimeout: 15 * time.Second,
			Passive: serialized && size == info.Size, Logger: logger})
	}
}

// joinBook runs the launcher's address exchange.
func joinBook(ctx context.Context, bs launch.Bootstrap, info launch.Info, addr string) (launch.Book, error) {
	bk, err := bs.Join(ctx, info, addr)
	if err == nil && len(bk.Addrs) != info.Size {
		err = fmt.Errorf("address book of %d ranks for a job of %d", len(bk.Addrs), info.Size)
	}
	return bk, err
}

// tcpConfig describes this rank's endpoint. It listens on loopback unless
// the job spans hosts. Heartbeats catch a peer that stops without closing
// its connections (stopped, hung); the timeout is generous because a rank
// running a million goroutines may read late. A job on several hosts also
// has the kernel end a connection whose heartbeats go unacknowledged.
//
// The data links are keyed by a secret only the job's user can read: the
// launcher's (PLEXUS_SECRET), else the one the bootstrap derived from its
// 0600 rendezvous file, which the endpoint learns from the exchange it
// must listen before (book.key). Nothing public, such as the job id or
// the user, ever makes a key.
func tcpConfig(info launch.Info, b *book) tcp.Config {
	cfg := tcp.Config{
		Rank: info.Rank, Size: info.Size, JobID: jobID(info), Addrs: b.addr,
		Heartbeat: time.Second, PeerTimeout: 15 * time.Second,
	}
	if spansHosts(info) {
		// A host that vanishes (its link down, powered off) closes no
		// connection, and silence cannot tell it from a busy rank; its
		// kernel's missing acknowledgements can, at once, since the
		// other kernels acknowledge however busy their ranks are.
		cfg.Listen = ":0"
		cfg.Heartbeat, cfg.UserTimeout = hostHeartbeat, hostUserTimeout
	}
	if len(info.Secret) >= tcp.MinSecret {
		cfg.Secret = info.Secret
	} else {
		cfg.Key = b.key
	}
	return cfg
}

// hostHeartbeat and hostUserTimeout bound how soon a rank on several
// hosts notices that another host vanished: the next heartbeat after the
// host went is sent within hostHeartbeat and stays unacknowledged, and
// the kernel ends the connection at its first retransmission timeout
// past hostUserTimeout (TCP_USER_TIMEOUT); in all, well under 2 s
// (cmd/plexus TestRunLosesHost). A second spans a few retransmissions at
// the minimum RTO of 200 ms, so a lost segment or two ends no link.
const (
	hostHeartbeat   = 250 * time.Millisecond
	hostUserTimeout = time.Second
)

// jobID names the job for the transport's handshake.
func jobID(info launch.Info) string {
	if info.JobID != "" {
		return info.JobID
	}
	return "plexus"
}

// spansHosts reports whether the job may have ranks on other hosts than
// this one: the launcher names several hosts (plexus run, srun), or fewer
// ranks share this host than the job has (mpirun's
// OMPI_COMM_WORLD_LOCAL_SIZE, torchrun's LOCAL_WORLD_SIZE), which is all
// mpirun says of its hosts.
func spansHosts(info launch.Info) bool {
	return multiHost(info.Hosts) || (info.LocalSize > 0 && info.LocalSize < info.Size)
}

// multiHost reports whether hosts names more than one host.
func multiHost(hosts []string) bool {
	for _, h := range hosts {
		if h != hosts[0] {
			return true
		}
	}
	return false
}

// advertise returns the address other ranks should dial: the listen
// address, or, when listening on every interface, this host's address on
// the way to rank 0's bootstrap address root (which every rank reaches,
// so the others most likely reach that interface too), else the host
// name. A host name need not resolve on the other hosts, nor to the
// interface the job uses, while the address the route to rank 0 leaves
// from does both on any cluster whose ranks reach one another.
func advertise(ctx context.Context, addr, root string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || !net.ParseIP(host).IsUnspecified() {
		return addr, err
	}
	if ip := sourceTo(ctx, root); ip != nil {
		return net.JoinHostPort(ip.String(), port), nil
	}
	name, err := os.Hostname()
	if err != nil {
		return "", err
	}
	return net.JoinHostPort(name, port), nil
}

// sourceTo returns the address this host sends from to reach root, which
// connecting a UDP socket finds without sending anything. It returns nil
// when root is empty or does not resolve, and for loopback and link-local
// addresses, which other hosts cannot dial (Debian names its own host
// 127.0.1.1, so rank 0 gets loopback for its own root).
func sourceTo(ctx context.Context, root string) net.IP {
	if root == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := new(net.Dialer).DialContext(ctx, "udp", root)
	if err != nil {
		return nil
	}
	defer c.Close()
	a, ok := c.LocalAddr().(*net.UDPAddr)
	if !ok || a.IP.IsLoopback() || a.IP.IsUnspecified() || a.IP.IsLinkLocalUnicast() {
		return nil
	}
	return a.IP
}

// book is the address book the transport dials from; it is filled once
// the launcher's exchange completes, and dials wait for that.
type book struct {
	ready chan struct{}
	addrs []string
	pids  []int // the ranks' process ids, for mux.Reach
	// secret is the job secret the bootstrap used (launch.Book.Secret).
	secret []byte
}

// key returns the job secret once the exchange is done (tcp.Config.Key).
func (b *book) key(ctx context.Context) ([]byte, error) {
	select {
	case <-b.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if b.secret == nil {
		return nil, errNoSecret
	}
	return b.secret, nil
}

// errNoSecret is the key's error when the address exchange failed.
var errNoSecret = errors.New("comm: no job secret: the address exchange failed")

func (b *book) addr(rank int) (string, error) {
	select {
	case <-b.ready:
	case <-time.After(time.Minute):
		return "", fmt.Errorf("comm: no address book after a minute")
	}
	if rank < 0 || rank >= len(b.addrs) {
		return "", fmt.Errorf("comm: no address for rank %d", rank)
	}
	return b.addrs[rank], nil
}
