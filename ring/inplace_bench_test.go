package ring

import "testing"

// BenchmarkOneSide sends and receives 8-byte messages on one goroutine,
// so that it times the calls' own work with no cache line crossing
// cores: by copy (TrySend and TryRecv) and in place (Claim, Part and
// Commit; Peek and Skip). It is the benchmark for checks added to those
// calls, which a round trip between cores would hide in its noise.
func BenchmarkOneSide(b *testing.B) {
	b.Run("path=copy", func(b *testing.B) {
		r, buf := NewHeap(benchSlots), make([]byte, 8)
		b.ReportAllocs()
		for b.Loop() {
			if ok, err := r.TrySend(buf); !ok || err != nil {
				b.Fatalf("TrySend: %v, %v", ok, err)
			}
			if _, ok, err := r.TryRecv(buf); !ok || err != nil {
				b.Fatalf("TryRecv: %v, %v", ok, err)
			}
		}
	})
	b.Run("path=inplace", func(b *testing.B) {
		r := NewHeap(benchSlots)
		b.ReportAllocs()
		for b.Loop() {
			if !r.Claim(8) {
				b.Fatal("Claim(8) found no room")
			}
			r.Part(0)[0]++
			r.Commit(8)
			if _, st := r.Peek(); st != InPlace {
				b.Fatalf("Peek: state %d", st)
			}
			r.Skip()
		}
	})
}
