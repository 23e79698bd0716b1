package launch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/plexus-hpc/plexus/internal/guard"
)

// Rank 0 admits registrations on its bootstrap port, where anyone may
// connect, so what a stranger can cost it is bounded (package guard): at
// most maxAdmitting connections are admitted before they prove the
// secret, maxAdmittingPerSource of them from one IP address, and beyond
// that the oldest of the busiest source is dropped; each must register
// within Bootstrap.Handshake; its registration is read into at most
// maxRegister bytes, so each costs a goroutine and a few kilobytes; and
// refusals are logged at most refusalBurst lines a second, one more line
// a second counting the rest. A connection that fails is closed and told
// nothing.
const (
	maxAdmitting          = 512
	maxAdmittingPerSource = 128
	refusalBurst          = 5
)

// errEvicted is the refusal of a connection dropped to admit newer ones.
var errEvicted = errors.New("dropped to admit newer connections")

// admission is rank 0's side of one Join's registrations.
type admission struct {
	b        Bootstrap
	secret   []byte
	size     int
	regs     chan *conn
	gate     *guard.Gate
	refusals *guard.Tally
}

// admitAll accepts connections until ranks 1..size-1 have registered.
// Each connection is admitted on its own goroutine, so a stranger that
// says nothing delays nobody.
func (b Bootstrap) admitAll(ctx context.Context, ln net.Listener, secret []byte, size int) ([]*conn, error) {
	a := &admission{b: b, secret: secret, size: size, regs: make(chan *conn),
		gate:     guard.NewGate(maxAdmitting, maxAdmittingPerSource),
		refusals: guard.NewTally(b.logger(), refusalBurst, time.Second, "launch: bootstrap refused connections")}
	defer a.refusals.Stop()
	inner, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { a.acceptLoop(inner, ln, &wg) })
	context.AfterFunc(inner, func() { ln.Close() })
	return collect(ctx, a.regs, size)
}

// acceptLoop admits connections until the listener is closed, which
// happens when ctx ends.
func (a *admission) acceptLoop(ctx context.Context, ln net.Listener, wg *sync.WaitGroup) {
	for {
		nc, err := ln.Accept()
		if errors.Is(err, net.ErrClosed) || ctx.Err() != nil {
			return
		}
		if err != nil {
			a.refusals.Log(slog.LevelError, "launch: bootstrap accept", "err", err)
			time.Sleep(10 * time.Millisecond) // e.g. out of file descriptors
			continue
		}
		t := a.gate.Admit(guard.Source(nc.RemoteAddr()), func() { nc.Close() })
		wg.Go(func() { a.admit(ctx, nc, t) })
	}
}

// admit runs rank 0's side of the handshake on one connection and hands a
// registered rank to collect. Anything else is logged and dropped.
func (a *admission) admit(ctx context.Context, nc net.Conn, t *guard.Ticket) {
	defer t.Release()
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	c, err := a.handshake(ctx, nc, t)
	if err != nil {
		stop()
		nc.Close()
		a.refusals.Log(slog.LevelWarn, "launch: bootstrap refused connection", "from", nc.RemoteAddr().String(), "err", err)
		return
	}
	c.release = stop
	select {
	case a.regs <- c: // collect owns the connection now
	case <-ctx.Done():
	}
}

// handshake says hello, reads the registration and, once it has proven
// the secret and t still holds its place, acknowledges it.
func (a *admission) handshake(ctx context.Context, nc net.Conn, t *guard.Ticket) (*conn, error) {
	nc.SetDeadline(deadline(ctx, a.b.handshake()))
	c := &conn{Conn: nc, secret: a.secret, nonce0: newNonce()}
	if err := writeFrame(nc, append([]byte(magic), c.nonce0...)); err != nil {
		return nil, err
	}
	reg, err := a.readRegister(nc, c.nonce0)
	if err == nil && !t.Release() {
		err = errEvicted
	}
	if err != nil {
		return nil, err
	}
	c.nonce1, c.rank, c.addr = reg.nonce, reg.rank, reg.addr
	if err := writeFrame(nc, mac(a.secret, "ack", c.nonce0, c.nonce1, nil)); err != nil {
		return nil, err
	}
	return c, nc.SetDeadline(time.Time{})
}

// readRegister reads a registration and checks it against the secret and
// the job.
func (a *admission) readRegister(nc net.Conn, nonce0 []byte) (register, error) {
	frame, err := readFrame(nc, maxRegister)
	if err != nil {
		return register{}, err
	}
	reg, err := decodeRegister(a.secret, nonce0, frame)
	switch {
	case err != nil:
		return register{}, err
	case reg.size != a.size:
		return register{}, fmt.Errorf("rank %d says the job has %d ranks, rank 0 has %d", reg.rank, reg.size, a.size)
	case reg.rank < 1 || reg.rank >= a.size:
		return register{}, fmt.Errorf("rank %d is not in a job of %d ranks", reg.rank, a.size)
	}
	return reg, nil
}
