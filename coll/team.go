package coll

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Team is a group of members, named by CPU, joined by links along the
// edges of a broadcast tree and a reduction tree (Smelt's context, §4.2.1),
// plus the links of a dissemination barrier. Several teams may exist at
// once; their links are independent.
//
// The first error any member meets ends the team: members waiting on a
// link, or starting an operation, then return an error wrapping ErrClosed
// and that cause, so that a failure is never a hang. Make a new team to
// continue.
//
// Invariants: members, their links and signals are fixed by NewTeam;
// failure goes from nil to its first value once and never changes again.
type Team struct {
	cfg     Config
	members []*Member
	signals bool // every tree link carries signals: Barrier uses them
	failure atomic.Pointer[failure]
	waking  *gauge // woken members not yet moved on (door.go)
	// together: every member can run at once (no more than GOMAXPROCS),
	// so a wake-up wakes them all (door.go).
	together bool
}

// failure is why a team ended: member cpu's error, or (cpu < 0) Close
// when err is nil and the end of Run's context otherwise.
type failure struct {
	cpu int
	err error
}

func (f *failure) error() error {
	switch {
	case f.cpu >= 0:
		return fmt.Errorf("%w after member %d failed: %w", ErrClosed, f.cpu, f.err)
	case f.err != nil:
		return fmt.Errorf("%w: %w", ErrClosed, f.err)
	}
	return ErrClosed
}

// NewTeam validates cfg and makes the team's links.
func NewTeam(cfg Config) (*Team, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	t := &Team{cfg: cfg, waking: new(gauge), together: len(cfg.Broadcast.Children) <= runtime.GOMAXPROCS(0)}
	ids := cfg.Broadcast.Members()
	for _, id := range ids {
		m := newMember(t, id)
		m.door = newDoor(t.together)
		t.members = append(t.members, m)
	}
	if err := t.wire(); err != nil {
		return nil, err
	}
	if t.cfg.transport == nil {
		t.wireMail() // rings: members share memory (twin links stand for remote ones)
	}
	return t, nil
}

// Members returns the members in increasing CPU order. Each must be used
// by one goroutine at a time (see Member).
func (t *Team) Members() []*Member { return append([]*Member(nil), t.members...) }

// Size returns the number of members.
func (t *Team) Size() int { return len(t.members) }

// Root returns the member at the root of both trees.
func (t *Team) Root() *Member { return t.member(t.cfg.Broadcast.Root) }

func (t *Team) member(cpu int) *Member {
	for _, m := range t.members {
		if m.cpu == cpu {
			return m
		}
	}
	return nil
}

// Err returns nil while the team is usable, else the error its members
// return.
func (t *Team) Err() error {
	if f := t.failure.Load(); f != nil {
		return f.error()
	}
	return nil
}

// Close ends the team: members waiting in an operation, and any later
// operation, return ErrClosed. Any goroutine may call it, any number of
// times.
func (t *Team) Close() { t.fail(-1, nil) }

// fail ends the team with member cpu's err unless it has ended already,
// and wakes its sleeping members to return.
func (t *Team) fail(cpu int, err error) {
	if t.failure.CompareAndSwap(nil, &failure{cpu: cpu, err: err}) {
		t.wakeAll()
	}
}

// doorOf returns the door of member cpu.
func (t *Team) doorOf(cpu int) *door { return t.member(cpu).door }

// Run runs f on every member, each on its own goroutine (pinned to the
// member's CPU when the config says so), waits for all of them and returns
// their errors joined, each prefixed with its member. An error of one
// member ends the team, so the others return rather than wait for it;
// their resulting ErrClosed errors are left out unless nothing else
// failed. If ctx ends first, the team ends too, so that members waiting
// with another context return. Run must not be called again until it
// returns.
func (t *Team) Run(ctx context.Context, f func(m *Member) error) error {
	if err := t.Err(); err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { t.fail(-1, context.Cause(ctx)) })
	defer stop()
	errs := make([]error, len(t.members))
	var wg sync.WaitGroup
	for i, m := range t.members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = t.runMember(m, f)
		}()
	}
	wg.Wait()
	return t.join(errs)
}

func (t *Team) runMember(m *Member, f func(m *Member) error) error {
	if t.cfg.Pin {
		unpin, err := m.Pin()
		if err != nil {
			return m.fail(err)
		}
		defer unpin()
	}
	return m.fail(f(m))
}

// join keeps the errors that are causes rather than consequences.
func (t *Team) join(errs []error) error {
	var causes, closed []error
	for i, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, ErrClosed):
			closed = append(closed, fmt.Errorf("member %d: %w", t.members[i].cpu, err))
		default:
			causes = append(causes, fmt.Errorf("member %d: %w", t.members[i].cpu, err))
		}
	}
	if len(causes) == 0 && len(closed) > 0 {
		return closed[0]
	}
	return errors.Join(causes...)
}
