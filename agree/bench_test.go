package agree

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// BenchmarkDecision times one normal-case decision at one replica of a
// group, the state machine alone (no encoding, no I/O): the messages the
// role receives for a decision are stepped, Ready is taken after each,
// and the replica compacts every benchCompact slots, as the drivers do.
//
//   - acceptor (replica 1): a Propose in, an Accept to All out;
//   - leader (replica 0): a Forward in, a Propose out, then the Accept;
//   - learner (replica 2): the Accept;
//   - proposer (replica 2): its own value (Propose, a Forward out), then
//     the Accept.
func BenchmarkDecision(b *testing.B) {
	for _, n := range []int{3, 14} {
		for _, role := range []string{"acceptor", "leader", "learner", "proposer"} {
			b.Run(fmt.Sprintf("replicas=%d/role=%s", n, role), func(b *testing.B) {
				benchDecision(b, n, role)
			})
		}
	}
}

// benchCompact is how often the benchmark's replica compacts, in slots
// (group's default for a team).
const benchCompact = 1024

func benchDecision(b *testing.B, replicas int, role string) {
	id := map[string]int{"acceptor": 1, "leader": 0, "learner": 2, "proposer": 2}[role]
	n, err := New(Config{ID: id, Replicas: replicas})
	if err != nil {
		b.Fatal(err)
	}
	vals := benchValues(4 * benchCompact)
	b.ReportAllocs()
	var sent, decided int
	for i := range b.N {
		s, v := uint64(i+1), vals[i%len(vals)]
		accept := Message{Type: Accept, From: 1, To: All, Epoch: 1, Slot: s, Value: v}
		switch role {
		case "acceptor":
			sent += benchStep(b, n, Message{Type: Propose, From: 0, To: 1, Epoch: 1, Slot: s, Value: v})
		case "leader":
			sent += benchStep(b, n, Message{Type: Forward, From: 1, To: 0, Epoch: 1, Value: v})
			sent += benchStep(b, n, accept)
		case "learner":
			sent += benchStep(b, n, accept)
		case "proposer":
			if err := n.Propose(v); err != nil {
				b.Fatal(err)
			}
			sent += len(n.Ready().Messages)
			sent += benchStep(b, n, accept)
		}
		decided = int(n.applied)
		if n.applied%benchCompact == 0 {
			if err := n.Compact(n.applied, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	want := b.N // the learner sends nothing, the others one message a decision
	if role == "learner" {
		want = 0
	}
	if decided != b.N || sent != want {
		b.Fatalf("%d decisions, %d messages sent for %d values: want %d and %d", decided, sent, b.N, b.N, want)
	}
}

// benchStep steps m and takes Ready, returning how many messages it sent.
func benchStep(b *testing.B, n *Node, m Message) int {
	if err := n.Step(m); err != nil {
		b.Fatal(err)
	}
	return len(n.Ready().Messages)
}

// benchValues returns k distinct 16-byte values (the store's case).
func benchValues(k int) [][]byte {
	vs := make([][]byte, k)
	for i := range vs {
		vs[i] = binary.LittleEndian.AppendUint64(make([]byte, 8, 16), uint64(i))
		vs[i] = vs[i][:16]
	}
	return vs
}
