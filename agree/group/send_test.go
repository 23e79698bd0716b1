package group

import (
	"context"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/agree"
)

// TestSendToCutsBursts sends replica 1 a burst of messages far longer
// than a link's frame: it arrives whole and in order on the link, in
// several frames, and nothing goes to the inbox (which would drop what
// did not fit).
func TestSendToCutsBursts(t *testing.T) {
	team, err := NewTeam(TeamConfig{Replicas: 3, Mode: Tree})
	if err != nil {
		t.Fatal(err)
	}
	var rs []*Replica
	for id := range 3 {
		r, err := New(Config{Agree: agree.Config{ID: id, Replicas: 3}, Ticks: make(chan time.Time)}, team.Net(id))
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	team.Attach(rs)
	const count = 2000
	var ms []agree.Message
	for s := range uint64(count) {
		ms = append(ms, agree.Message{Type: agree.Propose, From: 0, To: 1, Epoch: 1, Slot: s + 1, Value: make([]byte, 16)})
	}
	rs[0].sendTo(context.Background(), 1, ms)
	frames, got := 0, uint64(0)
	in, buf := team.members[1].in[0], make([]byte, teamMaxFrame)
	for {
		n, ok, err := in.TryRecv(buf)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			if team.flushBacklog(team.members[0]) {
				continue // the backlog had frames waiting for this room
			}
			break
		}
		frames++
		dec, err := decodeFrame(buf[:n])
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range dec {
			if got++; m.Slot != got {
				t.Fatalf("message %d has slot %d: out of order", got, m.Slot)
			}
		}
	}
	if got != count || frames < 2 || len(rs[1].inbox) != 0 {
		t.Errorf("%d of %d messages in %d frames on the link, %d in the inbox", got, count, frames, len(rs[1].inbox))
	}
}
