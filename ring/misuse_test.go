package ring

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// panicOf runs f and returns what it panicked with, or nil.
func panicOf(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// recvAll receives every message waiting in r, failing on any error.
func recvAll(t *testing.T, r *Ring) [][]byte {
	t.Helper()
	var got [][]byte
	buf := make([]byte, r.MaxMessage())
	for {
		n, ok, err := r.TryRecv(buf)
		if err != nil {
			t.Fatalf("TryRecv after %d messages: %v", len(got), err)
		}
		if !ok {
			return got
		}
		got = append(got, append([]byte(nil), buf[:n]...))
	}
}

// TestClaimRefusesBadSizes: a negative size, or one over MaxMessage,
// reserves nothing, and a Commit after it has no Claim to publish.
func TestClaimRefusesBadSizes(t *testing.T) {
	r := NewHeap(16)
	for _, n := range []int{-1, -SlotPayload, r.MaxMessage() + 1} {
		if r.Claim(n) {
			t.Errorf("Claim(%d) = true, want false", n)
		}
		if v := panicOf(func() { r.Commit(n) }); v == nil {
			t.Errorf("Commit(%d) after a refused Claim did not panic", n)
		}
	}
	if got := recvAll(t, r); len(got) != 0 {
		t.Errorf("received %d messages, want none", len(got))
	}
}

// TestCommitNeedsClaim: a Commit with no Claim to publish — none made,
// one already committed or ended by a send, or one smaller than the
// Commit — panics naming the sizes and publishes nothing, so the ring
// goes on delivering exactly what was sent.
func TestCommitNeedsClaim(t *testing.T) {
	msg := []byte("sent")
	for _, c := range []struct {
		name string
		bad  func(r *Ring)
		want string
	}{
		{"no claim", func(r *Ring) { r.Commit(100) }, "Commit(100) without a Claim"},
		{"over the claim", func(r *Ring) { r.Claim(10); r.Commit(1 << 20) }, "Commit(1048576) after Claim(10)"},
		{"one slot over", func(r *Ring) { r.Claim(SlotPayload); r.Commit(SlotPayload + 1) }, "after Claim(56)"},
		{"negative", func(r *Ring) { r.Claim(10); r.Commit(-1) }, "Commit(-1)"},
		{"committed", func(r *Ring) {
			r.Claim(len(msg))
			copy(r.Part(0), msg)
			r.Commit(len(msg))
			r.Commit(len(msg))
		}, "without a Claim"},
		{"sent over", func(r *Ring) { r.Claim(10); r.TrySend(msg); r.Commit(10) }, "without a Claim"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := NewHeap(16)
			v := panicOf(func() { c.bad(r) })
			if s, _ := v.(string); !strings.Contains(s, c.want) {
				t.Fatalf("recovered %v, want a panic saying %q", v, c.want)
			}
			r.TrySend(msg)
			for _, m := range recvAll(t, r) {
				if !bytes.Equal(m, msg) {
					t.Errorf("received %q, want only %q", m, msg)
				}
			}
		})
	}
}

// TestCommitUnderClaim: Commit may publish fewer bytes than Claim
// reserved, over fewer slots.
func TestCommitUnderClaim(t *testing.T) {
	r := NewHeap(16)
	if !r.Claim(3 * SlotPayload) {
		t.Fatal("Claim found no room")
	}
	copy(r.Part(0), "short")
	r.Commit(5)
	r.Claim(-1) // refused: ends nothing, publishes nothing
	if v := panicOf(func() { r.Commit(5) }); v == nil {
		t.Error("a second Commit(5) did not panic")
	}
	got := recvAll(t, r)
	if len(got) != 1 || string(got[0]) != "short" {
		t.Errorf("received %q, want [short]", got)
	}
}

// TestSkipNeedsInPlacePeek: Skip consumes only the message the last Peek
// returned in place and not consumed since; otherwise it does nothing,
// and no message is lost.
func TestSkipNeedsInPlacePeek(t *testing.T) {
	long := bytes.Repeat([]byte{7}, 2*SlotPayload)
	for _, c := range []struct {
		name string
		do   func(t *testing.T, r *Ring) // before two messages are sent and received
	}{
		{"empty", func(t *testing.T, r *Ring) { r.Skip() }},
		{"peeked empty", func(t *testing.T, r *Ring) { r.Peek(); r.Skip() }},
		{"skipped twice", func(t *testing.T, r *Ring) {
			r.TrySend([]byte("x"))
			r.Peek()
			r.Skip()
			r.Skip()
		}},
		{"taken by TryRecv", func(t *testing.T, r *Ring) {
			r.TrySend([]byte("x"))
			r.Peek()
			r.TryRecv(make([]byte, 8))
			r.Skip()
		}},
		{"other", func(t *testing.T, r *Ring) {
			r.TrySend(long)
			if _, st := r.Peek(); st != Other {
				t.Fatalf("Peek of %d bytes: state %d, want Other", len(long), st)
			}
			r.Skip()
			if n, ok, err := r.TryRecv(make([]byte, len(long))); n != len(long) || !ok || err != nil {
				t.Fatalf("TryRecv after Skip of Other: %d, %v, %v", n, ok, err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := NewHeap(16)
			c.do(t, r)
			r.TrySend([]byte("a"))
			r.TrySend([]byte("b"))
			if got := fmt.Sprintf("%q", recvAll(t, r)); got != `["a" "b"]` {
				t.Errorf("received %s, want [\"a\" \"b\"]", got)
			}
		})
	}
}
