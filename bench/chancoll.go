package bench

import "fmt"

// What a Go programmer would write for a broadcast or a reduction among
// goroutines without Plexus: a channel per member from the root, and one
// shared channel back to it. Same round structure as the team versions.

type chanColl struct {
	down []chan uint64 // root → member i
	up   chan uint64   // members → root
}

func newChanColl(n int) *chanColl {
	c := &chanColl{up: make(chan uint64, n)}
	for range n {
		c.down = append(c.down, make(chan uint64, 1))
	}
	return c
}

// chanBcast: the root sends the value to each member in turn; each member
// acknowledges; the root waits for all acknowledgements.
func chanBcast(n int) func() (body, func(), error) {
	return func() (body, func(), error) {
		c := newChanColl(n)
		return func(i, it int) error {
			if i == 0 {
				for _, d := range c.down[1:] {
					d <- uint64(it)
				}
				for range n - 1 {
					<-c.up
				}
				return nil
			}
			if v := <-c.down[i]; v != uint64(it) {
				return fmt.Errorf("%w: chan broadcast %d delivered %d", ErrOrder, it, v)
			}
			c.up <- 0
			return nil
		}, func() {}, nil
	}
}

// chanReduce: every member sends 1 to the root, which sums them and then
// releases each member.
func chanReduce(n int) func() (body, func(), error) {
	return func() (body, func(), error) {
		c := newChanColl(n)
		return func(i, it int) error {
			if i != 0 {
				c.up <- 1
				<-c.down[i]
				return nil
			}
			sum := uint64(1)
			for range n - 1 {
				sum += <-c.up
			}
			if sum != uint64(n) {
				return fmt.Errorf("bench: chan reduce %d summed %d, want %d", it, sum, n)
			}
			for _, d := range c.down[1:] {
				d <- 0
			}
			return nil
		}, func() {}, nil
	}
}
