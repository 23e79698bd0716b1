package ring

import (
	"strings"
	"testing"
)

// TestClaimNegative: a negative size claims nothing.
func TestClaimNegative(t *testing.T) {
	if NewHeap(8).Claim(-1) {
		t.Error("Claim(-1) = true")
	}
}

// TestCommitPastRoom: a Commit of more than the ring has room for panics
// instead of publishing slots the receiver still owns; the ring keeps
// working after it.
func TestCommitPastRoom(t *testing.T) {
	r := NewHeap(8)
	if !r.Claim(10) {
		t.Fatal("Claim(10) on an empty ring")
	}
	func() {
		defer func() {
			if p := recover(); p == nil || !strings.Contains(p.(string), "ring: Commit of 1048576 bytes") {
				t.Errorf("Commit(1<<20) after Claim(10): recovered %v, want a panic naming the Commit", p)
			}
		}()
		r.Commit(1 << 20)
	}()
	if ok, err := r.TrySend([]byte("after")); !ok || err != nil {
		t.Fatalf("TrySend after the refused Commit: %v, %v", ok, err)
	}
	buf := make([]byte, 16)
	if n, ok, err := r.TryRecv(buf); !ok || err != nil || string(buf[:n]) != "after" {
		t.Errorf("TryRecv: %q, %v, %v; want \"after\"", buf[:n], ok, err)
	}
}

// TestSkipWithoutPeek: Skip with no message peeked in place does nothing,
// so the next message is not lost.
func TestSkipWithoutPeek(t *testing.T) {
	r := NewHeap(8)
	r.Skip() // empty ring, nothing peeked
	if ok, err := r.TrySend([]byte("x")); !ok || err != nil {
		t.Fatal(ok, err)
	}
	msg, state := r.Peek()
	if state != InPlace || string(msg) != "x" {
		t.Fatalf("Peek after a stray Skip: %q, %v; want \"x\" in place", msg, state)
	}
	r.Skip()
	r.Skip() // the second has nothing to consume
	if _, state := r.Peek(); state != Empty {
		t.Errorf("Peek after Skip: %v, want Empty", state)
	}
	if ok, _ := r.TrySend([]byte("y")); !ok {
		t.Fatal("TrySend y")
	}
	if msg, state := r.Peek(); state != InPlace || string(msg) != "y" {
		t.Errorf("Peek: %q, %v; want \"y\" (a double Skip must not eat it)", msg, state)
	}
}
