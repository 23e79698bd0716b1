package tcp

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// lateKey is a Config.Key that blocks until release is called.
type lateKey struct {
	ready chan struct{}
	key   []byte
}

func newLateKey(key []byte) *lateKey { return &lateKey{ready: make(chan struct{}), key: key} }

func (k *lateKey) get(ctx context.Context) ([]byte, error) {
	select {
	case <-k.ready:
		return k.key, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (k *lateKey) release() { close(k.ready) }

// TestLateKey: a handshake waits for a secret that becomes known after
// the Endpoint listens; without it the acceptor closes the connection and
// says why only in its log.
func TestLateKey(t *testing.T) {
	keys := []*lateKey{newLateKey(testSecret), newLateKey(testSecret)}
	in := newInbox()
	logs := &logSink{}
	eps, _ := job(t, 2, func(c *Config) {
		c.Secret, c.Key, c.Deliver, c.Logger = nil, keys[c.Rank].get, in.deliver, logs.Logger()
		c.HandshakeTimeout = 300 * time.Millisecond
	})
	keys[1].release()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := eps[1].Send(ctx, 0, frame.Header{Kind: frame.Eager}, nil); err == nil {
		t.Fatal("Send to a rank without its key succeeded")
	}
	logs.waitFor(t, "job secret not known")
	time.AfterFunc(100*time.Millisecond, keys[0].release)
	if err := eps[1].Send(ctx, 0, frame.Header{Kind: frame.Eager, Seq: 7}, []byte("x")); err != nil {
		t.Fatalf("Send to a rank whose key came late: %v", err)
	}
	if d := in.wait(t, 1); d[0].h.Seq != 7 {
		t.Errorf("delivered Seq %d", d[0].h.Seq)
	}
}

// TestLateKeyRetried: a dial to a rank whose key comes later than a
// handshake lasts is tried again within the peer timeout.
func TestLateKeyRetried(t *testing.T) {
	late := newLateKey(testSecret)
	eps, _ := job(t, 2, func(c *Config) {
		c.HandshakeTimeout, c.Heartbeat = 200*time.Millisecond, 500*time.Millisecond
		if c.Rank == 0 {
			c.Secret, c.Key = nil, late.get
		}
	})
	time.AfterFunc(500*time.Millisecond, late.release)
	if err := eps[1].Send(context.Background(), 0, frame.Header{Kind: frame.Eager}, nil); err != nil {
		t.Fatalf("Send to a rank whose key came after two handshake timeouts: %v", err)
	}
}

// TestLateKeyTooShort: a key below MinSecret fails the handshake rather
// than weakening it.
func TestLateKeyTooShort(t *testing.T) {
	short := newLateKey([]byte("short"))
	short.release()
	eps, _ := job(t, 2, func(c *Config) { c.Secret, c.Key = nil, short.get })
	err := eps[1].Send(context.Background(), 0, frame.Header{Kind: frame.Eager}, nil)
	if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "5 bytes") {
		t.Fatalf("Send keyed with 5 bytes: %v, want ErrAuth naming the length", err)
	}
}

// authAnswer runs a dialer's side as a, up to the acceptor's answer, and
// returns that answer.
func authAnswer(t *testing.T, addr string, a authConf) (frame.Header, []byte) {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	dec := newDecoder(bufio.NewReader(nc), 1<<10)
	_, nonceA, err := dec.Next()
	if err != nil {
		t.Fatal(err)
	}
	p := append(append(newNonce(), a.mac(roleDialer, nonceA, a.rank)...), a.job...)
	writeFrame(nc, frame.Header{Kind: frame.Auth, Source: int32(a.rank), Aux: uint64(a.size)}, p)
	h, p, err := dec.Next()
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	return h, p
}

// TestRefusalTellsNothing: a dialer that fails to authenticate, however
// it fails, is told the same few words, which name neither the job nor
// the ranks; the log keeps the detail.
func TestRefusalTellsNothing(t *testing.T) {
	logs := &logSink{}
	eps, _ := job(t, 2, func(c *Config) { c.Logger = logs.Logger() })
	good := authConf{rank: 1, size: 2, job: "job-1", secret: testSecret}
	for name, change := range map[string]func(*authConf){
		"job":    func(a *authConf) { a.job = "job-2" },
		"secret": func(a *authConf) { a.secret = []byte("not-the-secret-at-all") },
		"size":   func(a *authConf) { a.size = 3 },
		"rank":   func(a *authConf) { a.rank = 5 },
	} {
		a := good
		change(&a)
		h, p := authAnswer(t, eps[0].Addr(), a)
		if h.Kind != frame.Bye || h.Aux != refuseAuth || string(p) != refusedAuth {
			t.Errorf("wrong %s: answer %s code %d %q, want Bye %q", name, h.Kind, h.Aux, p, refusedAuth)
		}
	}
	logs.waitFor(t, `belongs to job "job-2", not "job-1"`)
}
