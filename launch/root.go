package launch

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
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
		if secret, err = publish(path, info.JobID, ln.Addr().String(), b.logger()); err != nil {
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

// bookTimeout bounds the writing of a book to a rank that has proven
// itself: a book may be large, and the rank is no stranger.
const bookTimeout = 10 * time.Second

// sendBooks sends every rank the book and closes its connection. A rank
// that vanished since it registered is only logged: its own Join fails.
func (b Bootstrap) sendBooks(ctx context.Context, members []*conn, myAddr string) Book {
	addrs := make([]string, len(members))
	addrs[0] = myAddr
	for r, c := range members[1:] {
		addrs[r+1] = c.addr
	}
	for _, c := range members[1:] {
		c.SetDeadline(deadline(ctx, bookTimeout))
		if err := writeFrame(c, encodeBook(c.secret, c.nonce0, c.nonce1, addrs)); err != nil {
			b.logger().Error("launch: bootstrap: sending the address book", "rank", c.rank, "err", err)
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
