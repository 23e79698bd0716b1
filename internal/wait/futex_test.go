package wait

import (
	"sync/atomic"
	"testing"
	"time"
)

// A FutexWait whose word no longer holds the value returns at once; one
// that holds it sleeps until FutexWake or its timeout.
func TestFutex(t *testing.T) {
	if !HaveFutex {
		t.Skip("no futex(2) here")
	}
	var w atomic.Uint32
	w.Store(1)
	start := time.Now()
	FutexWait(&w, 0, time.Hour) // the word holds 1, not 0
	if d := time.Since(start); d > time.Minute {
		t.Fatalf("FutexWait on a changed word slept %v", d)
	}

	start = time.Now()
	FutexWait(&w, 1, 5*time.Millisecond)
	if d := time.Since(start); d < 5*time.Millisecond {
		t.Errorf("FutexWait without a wake-up returned after %v, before its 5ms timeout", d)
	}

	woke := make(chan struct{})
	go func() {
		for w.Load() == 1 {
			FutexWait(&w, 1, time.Hour)
		}
		close(woke)
	}()
	time.Sleep(time.Millisecond)
	w.Store(2)
	FutexWake(&w)
	select {
	case <-woke:
	case <-time.After(time.Minute):
		t.Fatal("FutexWake did not wake the sleeper within a minute")
	}
}
