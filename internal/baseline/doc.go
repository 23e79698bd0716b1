// Package baseline holds the conventional barriers that coll's team
// barrier is measured against, by coll's benchmarks and by plexus bench
// coll: a sense-reversing atomic barrier (Atomic), and barriers on
// sync.Cond (Cond), channels (Chan) and one sync.WaitGroup per round
// (WaitGroup), as Go programs write them.
//
// Each is reusable: Wait returns once n goroutines have called it in the
// current round, and the next n calls form the next round. Any goroutine
// may call Wait; exactly n take part per round.
//
//	b := baseline.NewAtomic(n)
//	for i := range n {
//		go func() {
//			for range rounds {
//				b.Wait() // every goroutine leaves round r after all n arrived
//			}
//		}()
//	}
package baseline
