package coll

import (
	"context"
	"errors"
	"fmt"

	"github.com/plexus-hpc/plexus/affinity"
	"github.com/plexus-hpc/plexus/internal/wait"
	"github.com/plexus-hpc/plexus/ring"
)

// Member is one participant of a team, named by its CPU.
//
// A Member's methods must only be called from one goroutine at a time,
// the member's own, and every member must call the team's collectives in
// the same order (as in MPI); the one exception is Broadcast at the root,
// which any number of goroutines may call at once (see Broadcast). A
// member that gets an error from a collective ends its team.
//
// Invariants: the links are fixed by NewTeam; acc, rx, pending and
// values, and the signals consumed on each link (signal.seen), are state
// of the member's goroutine; bcastMu is the only field several goroutines
// touch.
type Member struct {
	team   *Team
	cpu    int
	root   bool
	pair   bool         // the team is two members (Allreduce exchanges)
	policy *wait.Policy // the waiting policy of this member's waits

	bparent end   // broadcast tree parent; unset at the root
	bkids   []end // broadcast tree children, in send order
	rparent end   // reduction tree parent; unset at the root
	rkids   []end // reduction tree children

	mail *memberMail // the trees' mailboxes (mail.go); nil for remote teams

	dissOut []end // dissemination barrier, by round
	dissIn  []end
	bf      butterfly // doubling and Rabenseifner (butterfly.go)

	acc, rx []byte // MaxMessage bytes each
	pending []int  // reduction children not yet heard from
	values  []byte // the Values functions' encodings (value.go)
	bcastMu spinLock
	bell    chan struct{} // rung by remote links; nil for in-process teams
	door    *door         // where an in-process member sleeps (door.go); nil for remote ones
	debt    bool          // woken, and not yet moved on (door.go)
	prog    Progresser    // moves remote links' transport; nil for in-process teams
}

func newMember(t *Team, cpu int) *Member {
	return &Member{
		team: t, cpu: cpu, root: cpu == t.cfg.Broadcast.Root,
		pair:   len(t.cfg.Broadcast.Children) == 2, // both trees: one edge, the same root
		policy: t.cfg.waitPolicy(),
		acc:    make([]byte, t.cfg.MaxMessage), rx: make([]byte, t.cfg.MaxMessage),
	}
}

// CPU returns the CPU the member is named after.
func (m *Member) CPU() int { return m.cpu }

// IsRoot reports whether the member is the root of the team's trees,
// where broadcasts start and reductions end.
func (m *Member) IsRoot() bool { return m.root }

// Team returns the member's team.
func (m *Member) Team() *Team { return m.team }

// Pin pins the calling goroutine to the member's CPU, for callers that
// run members on goroutines of their own rather than through Run. Call the
// returned unpin on the same goroutine when done.
func (m *Member) Pin() (unpin func(), err error) {
	unpin, err = affinity.Pin(m.cpu)
	if err != nil {
		return unpin, fmt.Errorf("coll: pin member to CPU %d: %w", m.cpu, err)
	}
	return unpin, nil
}

// check returns ctx's error unchanged, else the team's, else nil.
func (m *Member) check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return m.team.Err()
}

// fail ends the team with err, if not nil, and returns err.
func (m *Member) fail(err error) error {
	if err != nil {
		m.team.fail(m.cpu, err)
	}
	return err
}

// send sends p on e, waiting under the spin policy while the link is full.
func (m *Member) send(ctx context.Context, e end, p []byte) error {
	if e.try == nil {
		err := e.Send(ctx, p)
		m.notify(e)
		return m.fail(linkErr(err))
	}
	s := spinner{room: true} // started at the first failed try (Member.idle)
	for {
		ok, err := e.try.TrySend(p)
		if ok || err != nil {
			s.settle()
			m.notify(e)
			return m.fail(linkErr(err))
		}
		if m.idle(&s) {
			if err := m.check(ctx); err != nil {
				s.settle()
				return m.fail(err)
			}
		}
	}
}

// recv receives the next message on e into buf.
func (m *Member) recv(ctx context.Context, e end, buf []byte) (int, error) {
	var s spinner // started at the first failed try (Member.idle)
	for {
		n, ok, err := e.TryRecv(buf)
		if ok || err != nil {
			s.settle()
			m.took(e)
			return n, m.fail(linkErr(err))
		}
		if m.idle(&s) {
			if err := m.check(ctx); err != nil {
				s.settle()
				return 0, m.fail(err)
			}
		}
	}
}

// linkErr gives ring errors the package's sentinels, keeping the ring's
// as well.
func linkErr(err error) error {
	switch {
	case err == nil || errors.Is(err, ErrTruncated) || errors.Is(err, ErrTooLarge):
		return err
	case errors.Is(err, ring.ErrTruncated):
		return fmt.Errorf("%w: %w", ErrTruncated, err)
	case errors.Is(err, ring.ErrTooLarge):
		return fmt.Errorf("%w: %w", ErrTooLarge, err)
	}
	return err
}
