package collective

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/coll"
)

// toTreeRoot brings a broadcast's data from root to the trees' root when
// they differ.
func (c *Comm) toTreeRoot(ctx context.Context, root int, buf []byte) error {
	switch {
	case root == c.Root():
		return nil
	case c.Rank() == root:
		return c.sendDirect(ctx, c.Root(), buf)
	case c.Rank() == c.Root():
		return c.recvDirect(ctx, root, buf)
	}
	return nil
}

// fromTreeRoot takes a result from the trees' root to root when they
// differ: the trees' root sends p, root receives into p.
func (c *Comm) fromTreeRoot(ctx context.Context, root int, p []byte) error {
	switch {
	case root == c.Root():
		return nil
	case c.Rank() == c.Root():
		return c.sendDirect(ctx, root, p)
	case c.Rank() == root:
		return c.recvDirect(ctx, c.Root(), p)
	}
	return nil
}

// sendDirect sends b to peer on the direct link in pieces of at most
// MaxMessage bytes; an empty b sends nothing.
func (c *Comm) sendDirect(ctx context.Context, peer int, b []byte) error {
	l, err := c.link(peer)
	if err != nil {
		return err
	}
	for off := 0; off < len(b); off += c.cfg.MaxMessage {
		if err := l.Send(ctx, b[off:min(len(b), off+c.cfg.MaxMessage)]); err != nil {
			return err
		}
	}
	return nil
}

// recvDirect receives what sendDirect sent into b, which must have the
// sent length.
func (c *Comm) recvDirect(ctx context.Context, peer int, b []byte) error {
	l, err := c.link(peer)
	if err != nil {
		return err
	}
	for off := 0; off < len(b); off += c.cfg.MaxMessage {
		piece := b[off:min(len(b), off+c.cfg.MaxMessage)]
		n, err := l.Recv(ctx, piece)
		if err != nil {
			return err
		}
		if n != len(piece) {
			return fmt.Errorf("%w: %d bytes from rank %d, %d expected", coll.ErrMismatch, n, peer, len(piece))
		}
	}
	return nil
}

// checkRoot validates a root rank.
func (c *Comm) checkRoot(root int) error {
	if root < 0 || root >= c.Size() {
		return fmt.Errorf("collective: root %d outside [0, %d)", root, c.Size())
	}
	return nil
}

// scratchOf returns n bytes of the communicator's scratch space, for the
// trees' root to hold a result on its way to another root.
func (c *Comm) scratchOf(n int) []byte {
	if cap(c.scratch) < n {
		c.scratch = make([]byte, n)
	}
	return c.scratch[:n]
}

// errShort is the error for an output buffer too short for the result.
// errNilOp is the error for a reduction without an operation, checked
// before anything is sent: the operation runs inside the collective,
// where a nil call would crash the process.
var errNilOp = fmt.Errorf("collective: nil reduction operation: %w", coll.ErrArgument)

func errShort(have, want int) error {
	return fmt.Errorf("collective: output buffer of %d bytes for a %d-byte result: %w", have, want, coll.ErrTruncated)
}
