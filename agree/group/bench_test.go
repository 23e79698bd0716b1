package group

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/agree"
	"github.com/plexus-hpc/plexus/ring"
)

// The benchmarks below time one role's work per decision on a Team, on
// the benchmark's goroutine, which plays every replica in turn: untimed,
// it puts what the other replicas would send for benchChunk decisions on
// the role's links; timed, it runs the role's sweeps until they are
// taken; untimed again, it drains the links the role sent on. The role's
// ring sends then hit lines this CPU owns, so the numbers are the role's
// own cost per decision under load (a burst of requests), without the
// cache misses of a real hand-off: how it grows with the replicas, tree
// against sequential, says what the broadcast costs the acceptor.

// benchChunk is how many decisions run between two drains of the links:
// few enough that what is sent fits a ring whose receiver publishes its
// position every half ring (no backlog; benchRole checks).
const benchChunk = 50

func BenchmarkAcceptor(b *testing.B) {
	for _, n := range []int{3, 8, 14} {
		for _, mode := range []Mode{Tree, Sequential} {
			b.Run(fmt.Sprintf("replicas=%d/mode=%v", n, mode), func(b *testing.B) {
				benchRole(b, n, mode, 1, func(team *Team, s uint64) { // the leader's proposal
					team.sendRaw(0, 1, benchFrame(b, frameDirect, 0, agree.Message{Type: agree.Propose, From: 0, To: 1, Epoch: 1, Slot: s, Value: benchValue(s)}))
				})
			})
		}
	}
}

func BenchmarkLeader(b *testing.B) {
	for _, n := range []int{3, 8, 14} {
		for _, mode := range []Mode{Tree, Sequential} {
			b.Run(fmt.Sprintf("replicas=%d/mode=%v", n, mode), func(b *testing.B) {
				benchRole(b, n, mode, 0, func(team *Team, s uint64) { // a request, then its accept
					v := benchValue(s)
					team.sendRaw(1, 0, benchFrame(b, frameDirect, 1, agree.Message{Type: agree.Forward, From: 1, To: 0, Epoch: 1, Value: v}))
					team.sendRaw(1, 0, benchFrame(b, frameTree, 1, agree.Message{Type: agree.Accept, From: 1, To: agree.All, Epoch: 1, Slot: s, Value: v}))
				})
			})
		}
	}
}

// benchRole times replica id's sweeps, each after feed put the messages
// of decision s on its links.
func benchRole(b *testing.B, n int, mode Mode, id int, feed func(team *Team, s uint64)) {
	team, err := NewTeam(TeamConfig{Replicas: n, Mode: mode})
	if err != nil {
		b.Fatal(err)
	}
	var rs []*Replica
	for i := range n {
		r, err := New(Config{Agree: agree.Config{ID: i, Replicas: n}, Ticks: make(chan time.Time), BroadcastBatch: 1,
			CompactEvery: 1024, Snapshot: func() []byte { return nil }}, team.Net(i))
		if err != nil {
			b.Fatal(err)
		}
		rs = append(rs, r)
	}
	team.Attach(rs)
	ctx, ticks, m := context.Background(), make(chan time.Time), team.members[id]
	b.ReportAllocs()
	b.ResetTimer()
	for s := uint64(1); s <= uint64(b.N); {
		b.StopTimer()
		drain(team, id)
		for end := min(s+benchChunk, uint64(b.N)+1); s < end; s++ {
			feed(team, s)
		}
		b.StartTimer()
		for team.pending(m) {
			rs[id].sweep(ctx, team, m, ticks)
		}
		b.StopTimer()
		for _, peer := range team.members {
			if peer.waiting > 0 {
				b.Fatalf("replica %d has %d frames in its backlog: the chunk is too long", peer.id, peer.waiting)
			}
		}
		b.StartTimer()
	}
}

// drain empties every link out of replica id.
func drain(team *Team, id int) {
	buf := make([]byte, teamMaxFrame)
	for _, peer := range team.members {
		if in := peer.in[id]; in != nil {
			for {
				if _, st := in.Peek(); st == ring.InPlace {
					in.Skip()
				} else if _, ok, _ := in.TryRecv(buf); !ok {
					break
				}
			}
		}
	}
}

func benchValue(s uint64) []byte { return binary.LittleEndian.AppendUint64(make([]byte, 8, 16), s) }

func benchFrame(b *testing.B, kind byte, origin int, m agree.Message) []byte {
	f, err := encodeFrame(nil, kind, origin, []agree.Message{m})
	if err != nil {
		b.Fatal(err)
	}
	return f
}
