package coll

import (
	"context"
	"fmt"
)

// How members of an in-process team use their mailboxes (mail.go).

// memberMail is an in-process member's mailboxes and its ends of its
// neighbours'. All of it is state of the member's goroutine, except that
// the readers' words (taken, gathered) are read by the writers.
type memberMail struct {
	down     mailOut     // to the broadcast children
	downIn   mailIn      // from the broadcast parent
	taken    *signalLine // broadcast messages taken from the parent
	up       mailOut     // to the reduction parent
	upIn     []mailIn    // from the reduction children, as rkids
	gathered *signalLine // reductions gathered from the children
}

// wireMail gives every member of an in-process team its mailboxes and
// its tree neighbours' ends of them.
func (t *Team) wireMail() {
	for _, m := range t.members {
		m.mail = &memberMail{
			down:  mailOut{box: new(mailbox)},
			up:    mailOut{box: new(mailbox)},
			taken: new(signalLine), gathered: new(signalLine),
		}
	}
	for _, m := range t.members {
		for _, c := range t.cfg.Broadcast.Children[m.cpu] {
			kid := t.member(c).mail
			kid.downIn = mailIn{box: m.mail.down.box}
			m.mail.down.acks = append(m.mail.down.acks, &kid.taken.n)
		}
		for _, c := range t.cfg.Reduce.Children[m.cpu] {
			kid := t.member(c).mail
			m.mail.upIn = append(m.mail.upIn, mailIn{box: kid.up.box})
			kid.up.acks = append(kid.up.acks, &m.mail.gathered.n)
		}
	}
}

// postDown sends p to every broadcast child through the member's down
// mailbox; a p too long for a slot goes on each child's link, and the
// mailbox carries the mark.
func (m *Member) postDown(ctx context.Context, p []byte) error {
	if len(m.bkids) == 0 {
		return nil
	}
	long := len(p) > mailData
	if long {
		for _, c := range m.bkids {
			if err := m.send(ctx, c, p); err != nil {
				return err
			}
		}
	}
	if err := m.waitRoom(ctx, &m.mail.down); err != nil {
		return err
	}
	m.mail.down.post(p, long)
	for _, c := range m.bkids {
		m.notify(c)
	}
	return nil
}

// postUp sends p to the reduction parent through the member's up
// mailbox, or on the link with a mark when p is too long for a slot.
func (m *Member) postUp(ctx context.Context, p []byte) error {
	long := len(p) > mailData
	if long {
		if err := m.send(ctx, m.rparent, p); err != nil {
			return err
		}
	}
	if err := m.waitRoom(ctx, &m.mail.up); err != nil {
		return err
	}
	m.mail.up.post(p, long)
	m.notify(m.rparent)
	return nil
}

// waitRoom waits until o may take a message.
func (m *Member) waitRoom(ctx context.Context, o *mailOut) error {
	if o.hasRoom() {
		return nil
	}
	s := spinner{room: true} // started at the first failed look (Member.idle)
	for !o.hasRoom() {
		if m.idle(&s) {
			if err := m.check(ctx); err != nil {
				s.settle()
				return m.fail(err)
			}
		}
	}
	s.settle()
	return nil
}

// takeDown receives the broadcast parent's next message into buf.
func (m *Member) takeDown(ctx context.Context, buf []byte) (int, error) {
	mm := m.mail
	code, err := m.awaitMail(ctx, &mm.downIn, m.bparent)
	if err != nil {
		return 0, err
	}
	n := code
	switch {
	case code == mailOnLink:
		n, err = m.recv(ctx, m.bparent, buf)
	case code > len(buf):
		err = m.fail(fmt.Errorf("%w: broadcast of %d bytes into a %d-byte buffer", ErrTruncated, code, len(buf)))
	default:
		copy(buf, mm.downIn.data(code))
	}
	mm.downIn.take()
	mm.taken.n.Store(mm.downIn.seen)
	m.took(m.bparent)
	return n, err
}

// awaitMail waits for in's next message and returns its code. The first
// polls are loads in a tight loop, as in awaitSignal; then it waits under
// the spinner, watching the team and, where it carries signals, the link
// to the writer, whose failure ends the wait.
func (m *Member) awaitMail(ctx context.Context, in *mailIn, e end) (int, error) {
	for range m.policy.Flat {
		if code, ok := in.peek(); ok {
			return code, nil
		}
	}
	w := m.newSpinner()
	for i := 1; ; i++ {
		if code, ok := in.peek(); ok {
			w.settle()
			return code, nil
		}
		if e.sig != nil && e.sig.link != nil && i%signalAsk == 0 {
			if _, err := e.sig.link.Signals(); err != nil {
				w.settle()
				return 0, m.fail(linkErr(err))
			}
		}
		if w.idle() {
			if err := m.check(ctx); err != nil {
				w.settle()
				return 0, m.fail(err)
			}
		}
	}
}

// gatherMail is gather over the reduction children's mailboxes: it folds
// each child's message into acc as it arrives, polling the children in
// turn, then acknowledges them all at once.
func (m *Member) gatherMail(ctx context.Context, acc []byte, op func(acc, in []byte)) error {
	err := m.pollChildren(ctx, func(pending []int) ([]int, error) { return m.pollMail(ctx, pending, acc, op) })
	if err != nil {
		return err
	}
	if len(m.rkids) > 0 {
		m.mail.gathered.n.Store(m.mail.upIn[0].seen)
		for _, c := range m.rkids {
			m.took(c)
		}
	}
	return nil
}

// pollMail looks once at each pending child's mailbox, folds what has
// come and returns the children still pending.
func (m *Member) pollMail(ctx context.Context, pending []int, acc []byte, op func(acc, in []byte)) ([]int, error) {
	for i := 0; i < len(pending); {
		in := &m.mail.upIn[pending[i]]
		code, ok := in.peek()
		if !ok {
			i++
			continue
		}
		data, err := m.mailData(ctx, in, code, pending[i])
		if err != nil {
			return pending, err
		}
		if len(data) != len(acc) {
			return pending, m.fail(fmt.Errorf("%w: reduction input of %d bytes from a child, %d here",
				ErrMismatch, len(data), len(acc)))
		}
		if op != nil {
			op(acc, data)
		}
		in.take()
		pending[i] = pending[len(pending)-1]
		pending = pending[:len(pending)-1]
	}
	return pending, nil
}

// mailData returns the data of in's next message, code as peek gave it,
// from reduction child k: the slot's, or the link's for a mark.
func (m *Member) mailData(ctx context.Context, in *mailIn, code, k int) ([]byte, error) {
	if code != mailOnLink {
		return in.data(code), nil
	}
	n, err := m.recv(ctx, m.rkids[k], m.rx)
	return m.rx[:n], err
}
