package coll

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/internal/wait"
)

// Broadcast delivers the root's message to every member (Smelt's atomic
// broadcast, §4.2.2). At the root it sends buf[:n] down the broadcast
// tree and returns n; elsewhere it receives the next message into buf,
// forwards it to the member's children in send order and returns its
// length. A message longer than buf is an error wrapping ErrTruncated.
//
// The root is the sequencer: any number of goroutines may call Broadcast
// on the root member at once, and a spin lock there serialises them, so
// that every member delivers the same messages in the same order. They
// must not overlap other collectives of the team, which share the links.
// At other members Broadcast follows the Member rule: one goroutine.
//
// Unlike comm/collective's Comm.Broadcast, which follows MPI_Bcast (a root
// named per call, one length on every rank), a team's root is fixed by its
// Config and messages may have any length up to buf's.
func (m *Member) Broadcast(ctx context.Context, buf []byte, n int) (int, error) {
	if !m.root {
		return m.relay(ctx, buf)
	}
	if n < 0 {
		return 0, m.fail(fmt.Errorf("%w: broadcast of %d bytes", ErrArgument, n))
	}
	if n > len(buf) || n > len(m.rx) {
		return 0, m.fail(fmt.Errorf("%w: broadcast of %d bytes from a %d-byte buffer, team limit %d",
			ErrTooLarge, n, len(buf), len(m.rx)))
	}
	if err := m.lockBcast(ctx); err != nil {
		return 0, err
	}
	defer m.bcastMu.unlock()
	return n, m.fanout(ctx, buf[:n])
}

// relay receives one broadcast message from the parent and passes it on.
func (m *Member) relay(ctx context.Context, buf []byte) (int, error) {
	n, err := m.recvDown(ctx, buf)
	if err != nil {
		return n, err
	}
	return n, m.fanout(ctx, buf[:n])
}

// recvDown receives the broadcast parent's next message: by mail in an
// in-process team, else from the link.
func (m *Member) recvDown(ctx context.Context, buf []byte) (int, error) {
	if m.mail != nil {
		return m.takeDown(ctx, buf)
	}
	return m.recv(ctx, m.bparent, buf)
}

// fanout sends p to every broadcast child: by one message in the
// member's mailbox in an in-process team, else on each child's link in
// send order.
func (m *Member) fanout(ctx context.Context, p []byte) error {
	if m.mail != nil {
		return m.postDown(ctx, p)
	}
	for _, c := range m.bkids {
		if err := m.send(ctx, c, p); err != nil {
			return err
		}
	}
	return nil
}

// lockBcast takes the root's broadcast lock, spinning under the policy.
func (m *Member) lockBcast(ctx context.Context) error {
	if m.bcastMu.tryLock() {
		return nil
	}
	// Not the member's spinner: nobody wakes a lock's waiter, so it naps.
	s := spinner{w: wait.NewWaiter(m.policy), bell: m.bell}
	for !m.bcastMu.tryLock() {
		if s.idle() {
			if err := m.check(ctx); err != nil {
				return m.fail(err)
			}
		}
	}
	return nil
}
