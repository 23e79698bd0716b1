package baseline

import (
	"fmt"
	"sync"
	"testing"
)

// Each baseline barrier holds every goroutine until all have arrived.
func TestBaselineBarriers(t *testing.T) {
	for _, n := range []int{1, 2, 3, 8} {
		for name, w := range baselines(n) {
			t.Run(fmt.Sprintf("%s/n=%d", name, n), func(t *testing.T) {
				checkBaseline(t, n, w)
			})
		}
	}
}

func baselines(n int) map[string]func() {
	return map[string]func(){
		"atomic": NewAtomic(n).Wait, "cond": NewCond(n).Wait,
		"chan": NewChan(n).Wait, "waitgroup": NewWaitGroup(n).Wait,
	}
}

func checkBaseline(t *testing.T, n int, wait func()) {
	var (
		arrived int64
		mu      sync.Mutex
		wg      sync.WaitGroup
		bad     = make(chan string, n)
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range int64(baselineRounds()) {
				mu.Lock()
				arrived++
				mu.Unlock()
				wait()
				mu.Lock()
				early := arrived < int64(n)*(r+1)
				mu.Unlock()
				if early {
					bad <- fmt.Sprintf("round %d: left early", r)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(bad)
	for msg := range bad {
		t.Error(msg)
	}
}

// baselineRounds is how many rounds checkBaseline runs: fewer under -short.
func baselineRounds() int {
	if testing.Short() {
		return 200
	}
	return 2000
}
