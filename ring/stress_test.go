package ring

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"runtime"
	"testing"

	"github.com/plexus-hpc/plexus/affinity"
)

// stressCount is how many messages a stress test exchanges.
func stressCount(full int) int {
	switch {
	case raceEnabled:
		return full / 100
	case testing.Short():
		return full / 10
	}
	return full
}

// cpuPair returns two CPUs for a producer and a consumer, or ok=false if
// the process may use fewer than two.
func cpuPair() (a, b int, ok bool) {
	cpus, err := affinity.Allowed()
	if err != nil || len(cpus) < 2 {
		return 0, 0, false
	}
	return cpus[0], cpus[1], true
}

// pinned runs f on a new goroutine pinned to cpu (unpinned if cpu < 0 or
// pinning fails) and returns a channel closed when f returns.
func pinned(cpu int, f func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if cpu >= 0 {
			unpin, _ := affinity.Pin(cpu)
			defer unpin()
		}
		f()
	}()
	return done
}

// stressMessage fills buf with message seq of a size derived from seq:
// sequence number, then a pattern, then a CRC-32 of the rest.
func stressMessage(buf []byte, seq uint64, maxLen int) []byte {
	size := 12 + int(seq*2654435761%uint64(maxLen-11))
	m := buf[:size]
	binary.LittleEndian.PutUint64(m, seq)
	for i := 8; i < size-4; i++ {
		m[i] = byte(seq) + byte(i)
	}
	binary.LittleEndian.PutUint32(m[size-4:], crc32.ChecksumIEEE(m[:size-4]))
	return m
}

// checkMessage verifies a received message is exactly stressMessage(want).
func checkMessage(t *testing.T, m []byte, want uint64, maxLen int) {
	exp := stressMessage(make([]byte, maxLen), want, maxLen)
	if len(m) != len(exp) || string(m) != string(exp) {
		got := uint64(0)
		if len(m) >= 8 {
			got = binary.LittleEndian.Uint64(m)
		}
		t.Fatalf("message %d: got %d bytes (seq %d), want %d bytes", want, len(m), got, len(exp))
	}
}

// stress sends count messages from a producer on cpuTx to a consumer on
// cpuRx and demands each arrive exactly once, in order, intact.
func stress(t *testing.T, slots, count, cpuTx, cpuRx, maxLen int) {
	r := NewHeap(slots)
	maxLen = min(maxLen, r.MaxMessage())
	ctx := context.Background()
	sent := pinned(cpuTx, func() {
		buf := make([]byte, maxLen)
		for seq := range uint64(count) {
			if err := r.Send(ctx, stressMessage(buf, seq, maxLen)); err != nil {
				t.Errorf("send %d: %v", seq, err)
				return
			}
		}
	})
	buf := make([]byte, maxLen)
	recvd := pinned(cpuRx, func() {
		for seq := range uint64(count) {
			n, err := r.Recv(ctx, buf)
			if err != nil {
				t.Errorf("recv %d: %v", seq, err)
				return
			}
			checkMessage(t, buf[:n], seq, maxLen)
		}
	})
	<-sent
	<-recvd
	if n, ok, err := r.TryRecv(buf); ok || err != nil {
		t.Fatalf("extra message after %d: %d bytes, %v", count, n, err)
	}
}

func TestStressPinned(t *testing.T) {
	a, b, ok := cpuPair()
	if !ok {
		a, b = -1, -1
	}
	for _, slots := range []int{2, 8, 64, 1024} {
		stress(t, slots, stressCount(1_000_000), a, b, 3*SlotPayload)
	}
	stress(t, 256, stressCount(200_000), a, b, 128*SlotPayload)
}

// TestStressOneCPU pins producer and consumer to the same CPU, so each
// must yield for the other to run: the backoff's yield and sleep phases.
func TestStressOneCPU(t *testing.T) {
	a, _, ok := cpuPair()
	if !ok {
		t.Skip("fewer than two CPUs allowed")
	}
	stress(t, 64, stressCount(100_000), a, a, 3*SlotPayload)
}

// TestStressOneProc runs producer and consumer unpinned on one P.
func TestStressOneProc(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	stress(t, 16, stressCount(100_000), -1, -1, 3*SlotPayload)
}
