package ring

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// op is one step of a twin run: send a message of size bytes, or receive
// into a buffer of size bytes.
type op struct {
	send bool
	size int
	peek bool // a receive by Peek and Skip (falling back to TryRecv); a send by Claim and Commit
	// stray makes, before the op, calls that must leave the ring as it
	// is (see strays).
	stray bool
}

// runTwin drives a Ring and its reference twin with ops and returns a
// description of the first difference, or "".
func runTwin(slots int, ops []op) string {
	r, ref := NewHeap(slots), newRef(slots)
	var seq byte
	got, want := make([]byte, 4*SlotPayload), make([]byte, 4*SlotPayload)
	for i, o := range ops {
		if d := strays(r, o); d != "" {
			return fmt.Sprintf("op %d: %s", i, d)
		}
		if o.send {
			msg := pattern(o.size, seq)
			seq++
			ok1, err1 := trySend(r, msg, o.peek)
			ok2, err2 := ref.TrySend(msg)
			if ok1 != ok2 || !sameErr(err1, err2) {
				return fmt.Sprintf("op %d send %d: ring (%v, %v), twin (%v, %v)", i, o.size, ok1, err1, ok2, err2)
			}
			continue
		}
		if o.peek {
			if d := peekTwin(r, ref, i, want); d != "" {
				return d
			}
			continue
		}
		n1, ok1, err1 := r.TryRecv(got[:o.size])
		n2, ok2, err2 := ref.TryRecv(want[:o.size])
		if n1 != n2 || ok1 != ok2 || !sameErr(err1, err2) {
			return fmt.Sprintf("op %d recv %d: ring (%d, %v, %v), twin (%d, %v, %v)", i, o.size, n1, ok1, err1, n2, ok2, err2)
		}
		if m := min(n1, o.size); !bytes.Equal(got[:m], want[:m]) {
			return fmt.Sprintf("op %d recv %d: ring %x, twin %x", i, o.size, got[:m], want[:m])
		}
	}
	return ""
}

// pattern returns size bytes that differ between neighbouring messages.
func pattern(size int, seq byte) []byte {
	p := make([]byte, size)
	for i := range p {
		p[i] = seq ^ byte(i*7)
	}
	return p
}

func randomOps(rng *rand.Rand, count int) []op {
	sendBias := rng.Float64()*0.6 + 0.2 // mixes from recv-heavy to send-heavy
	ops := make([]op, count)
	for i := range ops {
		ops[i] = op{send: rng.Float64() < sendBias, size: rng.IntN(3*SlotPayload + 1), peek: rng.IntN(2) == 0, stray: rng.IntN(8) == 0}
	}
	return ops
}

func TestTwinRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	runs := 400
	if testing.Short() {
		runs = 100
	}
	for run := range runs {
		slots := 2 << rng.IntN(7) // 2 .. 128
		ops := randomOps(rng, 500)
		if d := runTwin(slots, ops); d != "" {
			t.Fatalf("run %d, %d slots: %s", run, slots, d)
		}
	}
}

// FuzzTwin decodes fuzz bytes into a slot count and an operation sequence
// and demands that Ring and its twin agree on every result.
func FuzzTwin(f *testing.F) {
	f.Add([]byte{0, 1, 10, 0, 10})
	f.Add([]byte{2, 1, 200, 1, 57, 1, 0, 0, 3, 0, 200, 0, 200})
	f.Add(bytes.Repeat([]byte{1, 56, 1, 112, 0, 60}, 40))
	f.Add([]byte{0, 2, 10, 3, 10, 2, 10, 0, 10})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		slots := 2 << (data[0] % 7)
		var ops []op
		for i := 1; i+1 < len(data); i += 2 {
			ops = append(ops, op{send: data[i]&1 == 1, size: int(data[i+1]) % (3*SlotPayload + 1), stray: data[i]&2 != 0})
		}
		if d := runTwin(slots, ops); d != "" {
			t.Fatalf("%d slots: %s", slots, d)
		}
	})
}

// peekTwin receives with Peek (and Skip, or TryRecv when Peek says Other)
// and compares the outcome with the twin's TryRecv into a buffer that
// fits anything.
func peekTwin(r *Ring, ref *refRing, i int, want []byte) string {
	msg, st := r.Peek()
	n2, ok2, err2 := ref.TryRecv(want)
	switch st {
	case Empty:
		if ok2 || err2 != nil {
			return fmt.Sprintf("op %d peek: ring empty, twin (%d, %v, %v)", i, n2, ok2, err2)
		}
	case InPlace:
		if !ok2 || err2 != nil || !bytes.Equal(msg, want[:n2]) {
			return fmt.Sprintf("op %d peek: ring %x in place, twin (%x, %v, %v)", i, msg, want[:n2], ok2, err2)
		}
		r.Skip()
	case Other:
		got := make([]byte, len(want))
		n1, ok1, err1 := r.TryRecv(got)
		if n1 <= SlotPayload && err1 == nil || n1 != n2 || ok1 != ok2 || !sameErr(err1, err2) || !bytes.Equal(got[:n1], want[:n2]) {
			return fmt.Sprintf("op %d peek: Other, then ring (%d, %v, %v), twin (%d, %v, %v)", i, n1, ok1, err1, n2, ok2, err2)
		}
	}
	return ""
}

// trySend is TrySend, or with claim set, Claim, a copy into the parts
// and Commit.
func trySend(r *Ring, msg []byte, claim bool) (bool, error) {
	if !claim || len(msg) > r.MaxMessage() {
		return r.TrySend(msg)
	}
	if !r.Claim(len(msg)) {
		return false, nil
	}
	for i := 0; i*SlotPayload < len(msg); i++ {
		copy(r.Part(i), msg[i*SlotPayload:min(len(msg), (i+1)*SlotPayload)])
	}
	r.Commit(len(msg))
	return true, nil
}

// strays makes, for an op marked stray, the calls the ring's users must
// not make between whole sends and receives: a Claim of a negative size,
// a Commit with no Claim, a Skip with no message peeked in place. Each
// must leave the ring as it was, so the twin, which never sees them,
// goes on agreeing with it. It returns a description of a call that did
// otherwise at once, or "".
func strays(r *Ring, o op) string {
	if !o.stray {
		return ""
	}
	if r.Claim(-1 - o.size) {
		return fmt.Sprintf("Claim(%d) = true", -1-o.size)
	}
	if panicOf(func() { r.Commit(o.size) }) == nil {
		return fmt.Sprintf("Commit(%d) with no Claim did not panic", o.size)
	}
	r.Skip()
	return ""
}
