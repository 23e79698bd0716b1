package coll

import (
	"context"
	"testing"
)

// scopedLink is a link to a peer reached through the transports of
// scope; ProgressIn records the scope it was asked to progress.
type scopedLink struct {
	fakeProgresser
	scope uint
	asked []uint
}

func (l *scopedLink) Send(context.Context, []byte) error        { return nil }
func (l *scopedLink) TryRecv([]byte) (int, bool, error)         { return 0, false, nil }
func (l *scopedLink) Recv(context.Context, []byte) (int, error) { return 0, nil }
func (l *scopedLink) ProgressScope() uint                       { return l.scope }
func (l *scopedLink) ProgressIn(scope uint) (delivered, ok bool) {
	l.asked = append(l.asked, scope)
	return false, true
}

// plainLink progresses every transport it has.
type plainLink struct{ scopedLink }

func (l *plainLink) ProgressScope() {} // hides scopedLink's: not a ScopedProgresser

// TestProgresserScopes: a member's wait progresses the union of its links'
// scopes through the first link, and every transport once any link cannot
// say which it uses.
func TestProgresserScopes(t *testing.T) {
	const local, remote = 1, 2
	for _, c := range []struct {
		name   string
		scopes []uint // 0: a link that is not a ScopedProgresser
		want   uint
	}{
		{"one local link", []uint{local}, local},
		{"local links", []uint{local, local, local}, local},
		{"a remote link among local ones", []uint{local, remote, local}, local | remote},
		{"an unscoped link", []uint{local, 0}, ^uint(0)},
	} {
		var ends []end
		var first *scopedLink
		for _, s := range c.scopes {
			if s == 0 {
				ends = append(ends, end{Link: &plainLink{}})
				continue
			}
			l := &scopedLink{scope: s}
			if first == nil {
				first = l
			}
			ends = append(ends, end{Link: l})
		}
		p := progresser(ends)
		if p == nil {
			t.Fatalf("%s: no progresser", c.name)
		}
		if _, ok := p.Progress(); !ok {
			t.Fatalf("%s: Progress not ok", c.name)
		}
		if len(first.asked) != 1 || first.asked[0] != c.want {
			t.Errorf("%s: first link asked to progress scopes %v, want [%d]", c.name, first.asked, c.want)
		}
	}
}
