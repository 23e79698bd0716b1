package launch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"
)

// Book is the job's address book: Addrs[r] is the data address rank r
// passed to Join.
type Book struct {
	Addrs []string
	// Secret is the job secret the bootstrap used: Info.Secret, or the
	// one derived from the rendezvous file, which Info lacks. Transports
	// authenticate data links with it. Nil for a single rank.
	Secret []byte
}

// ErrMissing is wrapped, together with the context's error, when ranks did
// not register with rank 0 before the context ended.
var ErrMissing = errors.New("launch: ranks missing from the bootstrap")

var errNoRendezvous = errors.New("launch: no bootstrap address and secret, and no job id to name a rendezvous file: set PLEXUS_ROOT and PLEXUS_SECRET")

// Bootstrap configures Join. The zero value is ready to use.
type Bootstrap struct {
	// Logger receives a record per replaced stale rendezvous file (Info),
	// per refused bootstrap connection (Warn, at most a few a second,
	// then one a second counting the rest) and per rank that rank 0
	// could not send the address book to (Error); nil means
	// slog.Default().
	Logger *slog.Logger
	// TempDir holds rendezvous files; "" means os.TempDir(), which honours
	// $TMPDIR. Every rank of a job must see the same directory.
	TempDir string
	// Handshake bounds how long rank 0 waits for a connection to
	// authenticate, so a silent stranger holds nothing for long, and how
	// long a rank waits for rank 0 to answer before it tries again; 0
	// means 2 seconds. A rank registers one round trip after it
	// connects.
	Handshake time.Duration
}

// Join is Bootstrap{}.Join.
func Join(ctx context.Context, info Info, myAddr string) (Book, error) {
	return Bootstrap{}.Join(ctx, info, myAddr)
}

// Join exchanges data addresses among the ranks of the job info describes
// and returns the address book, the same on every rank. Every rank of the
// job must call it; it returns once rank 0 has heard from all of them, or
// with an error when ctx ends first (rank 0's error names the missing
// ranks). myAddr is this rank's data address, carried but not interpreted.
//
// Rank 0 listens on info.Root, or on a free loopback port published in the
// rendezvous file when info.Root is empty; the other ranks connect, prove
// they hold the job secret and register. Connections that do not prove it
// are logged and dropped without disturbing the job. A job whose
// info.Hosts names several hosts needs info.Secret: without one Join
// fails at once, since the rendezvous file is seen on one host only.
func (b Bootstrap) Join(ctx context.Context, info Info, myAddr string) (Book, error) {
	if err := checkJoin(info, myAddr); err != nil {
		return Book{}, err
	}
	if info.Size == 1 {
		return Book{Addrs: []string{myAddr}, Secret: info.Secret}, nil
	}
	if err := checkSecret(info); err != nil {
		return Book{}, err
	}
	if (info.Root == "" || len(info.Secret) == 0) && info.JobID == "" {
		return Book{}, errNoRendezvous
	}
	if info.Rank == 0 {
		return b.serve(ctx, info, myAddr)
	}
	return b.join(ctx, info, myAddr)
}

func checkJoin(info Info, myAddr string) error {
	switch {
	case info.Size < 1 || info.Size > maxRanks:
		return fmt.Errorf("launch: job size %d is not between 1 and %d", info.Size, maxRanks)
	case info.Rank < 0 || info.Rank >= info.Size:
		return fmt.Errorf("launch: rank %d is not in a job of size %d", info.Rank, info.Size)
	case myAddr == "" || len(myAddr) > maxAddr:
		return fmt.Errorf("launch: data address %q is empty or longer than %d bytes", myAddr, maxAddr)
	}
	return nil
}

func (b Bootstrap) logger() *slog.Logger {
	if b.Logger != nil {
		return b.Logger
	}
	return slog.Default()
}

func (b Bootstrap) handshake() time.Duration {
	if b.Handshake > 0 {
		return b.Handshake
	}
	return 2 * time.Second
}

func (b Bootstrap) rendezvous(info Info) string {
	dir := b.TempDir
	if dir == "" {
		dir = os.TempDir()
	}
	return rendezvousPath(dir, info.JobID)
}

// join is Join for ranks other than 0: find rank 0, register, and wait
// for the book. Everything before rank 0's acknowledgement is retried
// with backoff until ctx ends, since rank 0 may not be listening yet.
func (b Bootstrap) join(ctx context.Context, info Info, myAddr string) (Book, error) {
	wait := 5 * time.Millisecond
	for {
		root, secret, err := b.findRoot(info)
		var c *conn
		if err == nil {
			c, err = b.register(ctx, root, secret, info, myAddr)
		}
		if err == nil {
			return c.awaitBook(ctx, info.Size)
		}
		if errors.Is(err, errUntrusted) {
			return Book{}, err
		}
		select {
		case <-ctx.Done():
			return Book{}, fmt.Errorf("launch: rank %d got no address book (last: %v): %w", info.Rank, err, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 250*time.Millisecond)
	}
}

// findRoot returns rank 0's address and the job secret, from info or the
// rendezvous file.
func (b Bootstrap) findRoot(info Info) (string, []byte, error) {
	if info.Root != "" && len(info.Secret) > 0 {
		return info.Root, info.Secret, nil
	}
	path := b.rendezvous(info)
	addr, random, err := readRendezvous(path)
	if errors.Is(err, errNotYet) {
		return "", nil, fmt.Errorf("%w: %s", err, path)
	}
	if err != nil {
		return "", nil, err
	}
	return addr, jobSecret(info.JobID, random), nil
}
