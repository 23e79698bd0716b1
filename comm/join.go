package comm

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/plexus-hpc/plexus/launch"
	"github.com/plexus-hpc/plexus/transport/tcp"
)

// Join makes this process's world from its environment, whichever
// launcher started it (plexus run, mpirun, srun, torchrun, or none: a
// world of one), over TCP, with the default Config.
func Join(ctx context.Context) (*World, error) { return JoinWith(ctx, Config{}) }

// JoinWith is Join with cfg's protocol settings; its Rank and Size are
// taken from the environment.
func JoinWith(ctx context.Context, cfg Config) (*World, error) {
	info, err := launch.Detect(os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("comm: join: %w", err)
	}
	cfg.Rank, cfg.Size = info.Rank, info.Size
	b := &book{ready: make(chan struct{})}
	var ep *tcp.Endpoint
	w, err := New(cfg, TCP(tcpConfig(info, b), func(e *tcp.Endpoint) { ep = e }))
	if err != nil {
		return nil, err
	}
	addr, err := advertise(ep.Addr())
	if err == nil {
		b.addrs, err = joinBook(ctx, info, addr)
	}
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("comm: join: %w", err)
	}
	close(b.ready)
	return w, nil
}

// joinBook runs the launcher's address exchange.
func joinBook(ctx context.Context, info launch.Info, addr string) ([]string, error) {
	bk, err := launch.Join(ctx, info, addr)
	if err == nil && len(bk.Addrs) != info.Size {
		err = fmt.Errorf("address book of %d ranks for a job of %d", len(bk.Addrs), info.Size)
	}
	return bk.Addrs, err
}

// tcpConfig describes this rank's endpoint. It listens on loopback unless
// the job spans hosts. Heartbeats catch a host that vanishes without
// closing its connections; the timeout is generous because a rank running
// a million goroutines may answer late.
func tcpConfig(info launch.Info, b *book) tcp.Config {
	listen := ""
	if multiHost(info.Hosts) {
		listen = ":0"
	}
	return tcp.Config{
		Rank: info.Rank, Size: info.Size, JobID: jobID(info),
		Secret: secret(info), Addrs: b.addr, Listen: listen,
		Heartbeat: time.Second, PeerTimeout: 15 * time.Second,
	}
}

// jobID names the job for the transport's handshake.
func jobID(info launch.Info) string {
	if info.JobID != "" {
		return info.JobID
	}
	return "plexus"
}

// secret returns the job's secret. When the launcher gave none (a
// single-host job bootstrapped through a rendezvous file), a key is
// derived from the job id and the user, which only keeps other jobs and
// users' stray connections apart; launch does not hand out the file's
// secret yet.
func secret(info launch.Info) []byte {
	if len(info.Secret) >= tcp.MinSecret {
		return info.Secret
	}
	sum := sha256.Sum256([]byte("plexus data " + jobID(info) + " " + strconv.Itoa(os.Getuid()) + " " + string(info.Secret)))
	return sum[:]
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
// address, with this host's name when listening on every interface.
func advertise(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || !net.ParseIP(host).IsUnspecified() {
		return addr, err
	}
	name, err := os.Hostname()
	if err != nil {
		return "", err
	}
	return net.JoinHostPort(name, port), nil
}

// book is the address book the transport dials from; it is filled once
// the launcher's exchange completes, and dials wait for that.
type book struct {
	ready chan struct{}
	addrs []string
}

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
