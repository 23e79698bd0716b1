package tcp_test

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/transport/frame"
	"github.com/plexus-hpc/plexus/transport/tcp"
)

// Two ranks of one job in one process: rank 0 sends a tagged message to
// rank 1, which connects back and answers.
func Example() {
	secret := []byte("a per-job secret, 16+ bytes")
	addrs := make([]string, 2)
	book := func(rank int) (string, error) { return addrs[rank], nil }
	got := make(chan string, 2)
	var eps [2]*tcp.Endpoint
	for rank := range eps {
		ep, err := tcp.Listen(tcp.Config{
			Rank: rank, Size: 2, JobID: "example", Secret: secret, Addrs: book,
			Deliver: func(peer int, h frame.Header, p []byte) {
				// p is valid only during the call: copy what is kept.
				got <- fmt.Sprintf("rank %d got %q from rank %d, tag %d", rank, p, peer, h.Tag)
			},
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		defer ep.Close()
		addrs[rank], eps[rank] = ep.Addr(), ep
	}
	ctx := context.Background()
	eps[0].Send(ctx, 1, frame.Header{Kind: frame.Eager, Tag: 7}, []byte("ping"))
	fmt.Println(<-got)
	eps[1].Send(ctx, 0, frame.Header{Kind: frame.Eager, Tag: 8}, []byte("pong"))
	fmt.Println(<-got)
	// Output:
	// rank 1 got "ping" from rank 0, tag 7
	// rank 0 got "pong" from rank 1, tag 8
}
