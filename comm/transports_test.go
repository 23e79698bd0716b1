package comm

import (
	"log/slog"
	"testing"

	"github.com/plexus-hpc/plexus/transport/tcp"
)

// fixture is a set of worlds on one transport and a way to crash one.
type fixture struct {
	ws   []*World
	kill func(rank int)
}

// makers builds fixtures on every transport.
var makers = map[string]func(t testing.TB, n int, cfg Config) fixture{
	"twin": func(t testing.TB, n int, cfg Config) fixture {
		ws, tw := twinWorlds(t, n, cfg)
		return fixture{ws, tw.Kill}
	},
	"tcp": func(t testing.TB, n int, cfg Config) fixture {
		ws := tcpWorlds(t, n, cfg)
		return fixture{ws, func(r int) { ws[r].Close() }}
	},
}

// eachTransport runs f as a subtest per transport.
func eachTransport(t *testing.T, f func(t *testing.T, mk func(t testing.TB, n int, cfg Config) fixture)) {
	for _, name := range []string{"twin", "tcp"} {
		t.Run("transport="+name, func(t *testing.T) { f(t, makers[name]) })
	}
}

// tcpWorlds returns n worlds over TCP loopback in this process, with an
// address book filled once every endpoint listens.
func tcpWorlds(t testing.TB, n int, cfg Config) []*World {
	t.Helper()
	b := &book{ready: make(chan struct{}), addrs: make([]string, n)}
	ws := make([]*World, n)
	for i := range ws {
		c := cfg
		c.Rank, c.Size = i, n
		tc := tcp.Config{Rank: i, Size: n, JobID: "comm-test", Secret: []byte("0123456789abcdef-test"),
			Addrs: b.addr, Logger: slog.New(slog.DiscardHandler)}
		w, err := openWorld(c, openTCP(tc, func(e *tcp.Endpoint) { b.addrs[i] = e.Addr() }))
		if err != nil {
			t.Fatal(err)
		}
		ws[i] = w
	}
	close(b.ready)
	t.Cleanup(func() {
		for _, w := range ws {
			w.Close()
		}
	})
	return ws
}
