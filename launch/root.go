package launch

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// serve is Join for rank 0: listen, publish the address if needed, admit
// registrations until every rank has one, then send each the book.
func (b Bootstrap) serve(ctx context.Context, info Info, myAddr string) (Book, error) {
	addr := info.Root
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := b.rootListener(ctx, info, addr)
	if err != nil {
		return Book{}, err
	}
	defer ln.Close()
	secret := info.Secret
	if info.Root == "" || len(secret) == 0 {
		path := b.rendezvous(info)
		if secret, err = publish(path, info.JobID, ln.Addr().String(), b.logf); err != nil {
			return Book{}, err
		}
		defer os.Remove(path)
	}
	members, err := b.admitAll(ctx, ln, secret, info.Size)
	if err != nil {
		return Book{}, err
	}
	book := b.sendBooks(ctx, members, myAddr)
	book.Secret = secret
	return book, nil
}

// admitAll accepts connections until ranks 1..size-1 have registered.
// Each connection is admitted on its own goroutine, so a stranger that
// says nothing delays nobody.
func (b Bootstrap) admitAll(ctx context.Context, ln net.Listener, secret []byte, size int) ([]*conn, error) {
	inner, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	regs := make(chan *conn)
	wg.Go(func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return // the listener is closed when Join returns
			}
			wg.Go(func() { b.admit(inner, nc, secret, size, regs) })
		}
	})
	context.AfterFunc(inner, func() { ln.Close() })
	return collect(ctx, regs, size)
}

// collect gathers registrations; on failure it closes the ones it has.
func collect(ctx context.Context, regs <-chan *conn, size int) ([]*conn, error) {
	members := make([]*conn, size)
	err := func() error {
		for have := 1; have < size; {
			select {
			case c := <-regs:
				if !c.release() {
					continue // the context ended and closed it; the next turn says so
				}
				old := members[c.rank]
				if old != nil && old.addr != c.addr {
					c.Close()
					return fmt.Errorf("launch: rank %d registered twice, with data addresses %q and %q", c.rank, old.addr, c.addr)
				}
				if old != nil {
					old.Close() // the rank lost its connection and came back
				} else {
					have++
				}
				members[c.rank] = c
			case <-ctx.Done():
				return fmt.Errorf("%w: %s of %d never registered: %w", ErrMissing, missing(members), size, ctx.Err())
			}
		}
		return nil
	}()
	if err != nil {
		for _, c := range members[1:] {
			if c != nil {
				c.Close()
			}
		}
	}
	return members, err
}

// admit runs rank 0's side of the handshake on one connection and hands a
// registered rank to collect. Anything else is logged and dropped.
func (b Bootstrap) admit(ctx context.Context, nc net.Conn, secret []byte, size int, regs chan<- *conn) {
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	c, err := b.serverHandshake(ctx, nc, secret, size)
	if err != nil {
		stop()
		nc.Close()
		b.logf("launch: bootstrap refused connection from %s: %v", nc.RemoteAddr(), err)
		return
	}
	c.release = stop
	select {
	case regs <- c: // collect owns the connection now
	case <-ctx.Done():
	}
}

func (b Bootstrap) serverHandshake(ctx context.Context, nc net.Conn, secret []byte, size int) (*conn, error) {
	nc.SetDeadline(deadline(ctx, b.handshake()))
	c := &conn{Conn: nc, secret: secret, nonce0: newNonce()}
	if err := writeFrame(nc, append([]byte(magic), c.nonce0...)); err != nil {
		return nil, err
	}
	frame, err := readFrame(nc, maxFrame)
	if err != nil {
		return nil, err
	}
	reg, err := decodeRegister(secret, c.nonce0, frame)
	switch {
	case err != nil:
		return nil, err
	case reg.size != size:
		return nil, fmt.Errorf("rank %d says the job has %d ranks, rank 0 has %d", reg.rank, reg.size, size)
	case reg.rank < 1 || reg.rank >= size:
		return nil, fmt.Errorf("rank %d is not in a job of %d ranks", reg.rank, size)
	}
	c.nonce1, c.rank, c.addr = reg.nonce, reg.rank, reg.addr
	if err := writeFrame(nc, mac(secret, "ack", c.nonce0, c.nonce1, nil)); err != nil {
		return nil, err
	}
	return c, nc.SetDeadline(time.Time{})
}

// sendBooks sends every rank the book and closes its connection. A rank
// that vanished since it registered is only logged: its own Join fails.
func (b Bootstrap) sendBooks(ctx context.Context, members []*conn, myAddr string) Book {
	addrs := make([]string, len(members))
	addrs[0] = myAddr
	for r, c := range members[1:] {
		addrs[r+1] = c.addr
	}
	for _, c := range members[1:] {
		c.SetDeadline(deadline(ctx, b.handshake()))
		if err := writeFrame(c, encodeBook(c.secret, c.nonce0, c.nonce1, addrs)); err != nil {
			b.logf("launch: bootstrap: address book for rank %d: %v", c.rank, err)
		}
		c.Close()
	}
	return Book{Addrs: addrs}
}

// missing lists the ranks without a registration, as "2-3,7".
func missing(members []*conn) string {
	var parts []string
	for r := 1; r < len(members); r++ {
		if members[r] != nil {
			continue
		}
		end := r
		for end+1 < len(members) && members[end+1] == nil {
			end++
		}
		part := strconv.Itoa(r)
		if end > r {
			part += "-" + strconv.Itoa(end)
		}
		parts, r = append(parts, part), end
	}
	return "ranks " + strings.Join(parts, ",")
}

// rootListener is the inherited listener when plexus run passed one, else
// a new one on addr.
func (b Bootstrap) rootListener(ctx context.Context, info Info, addr string) (net.Listener, error) {
	if ln, ok, err := inheritedListener(info); ok || err != nil {
		return ln, err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("launch: bootstrap listener: %w", err)
	}
	return ln, nil
}
