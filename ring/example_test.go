package ring_test

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/ring"
)

// A queue pair between two goroutines: one end sends a request, the other
// answers it.
func Example() {
	ctx := context.Background()
	a, b := ring.NewPairs(16)
	go func() {
		buf := make([]byte, a.MaxMessage())
		n, _ := b.Recv(ctx, buf)
		b.Send(ctx, append([]byte("echo: "), buf[:n]...))
	}()
	if err := a.Send(ctx, []byte("hello")); err != nil {
		fmt.Println(err)
	}
	buf := make([]byte, a.MaxMessage())
	n, err := a.Recv(ctx, buf)
	fmt.Println(string(buf[:n]), err)
	// Output: echo: hello <nil>
}

// Messages longer than a slot span several; a message longer than half the
// ring is refused.
func ExampleRing_TrySend() {
	r := ring.NewHeap(8)
	fmt.Println(r.MaxMessage())
	ok, err := r.TrySend(make([]byte, 100))
	fmt.Println(ok, err)
	_, err = r.TrySend(make([]byte, r.MaxMessage()+1))
	fmt.Println(err)
	// Output:
	// 224
	// true <nil>
	// ring: message larger than the ring's capacity: 225 bytes, at most 224
}
