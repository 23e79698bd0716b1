//go:build linux

package shm_test

import (
	"context"
	"fmt"
	"os"

	"github.com/plexus-hpc/plexus/transport/frame"
	"github.com/plexus-hpc/plexus/transport/shm"
)

// Two ranks of one job, here in one process, each mapping the segment.
func Example() {
	dir, err := os.MkdirTemp(shm.DefaultDir, "plexus-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	got := make(chan string, 1)
	open := func(rank int) *shm.Endpoint {
		ep, err := shm.Open(shm.Config{Rank: rank, Size: 2, JobID: "example", Dir: dir,
			Deliver: func(peer int, h frame.Header, p []byte) { got <- fmt.Sprintf("from %d tag %d: %s", peer, h.Tag, p) }})
		if err != nil {
			panic(err)
		}
		return ep
	}
	a, b := open(0), open(1)
	defer b.Close()
	defer a.Close()
	a.Send(context.Background(), 1, frame.Header{Kind: frame.Eager, Tag: 7}, []byte("hello"))
	fmt.Println(<-got)
	// Output: from 0 tag 7: hello
}

// Queued frames go out together: here the three wait in rank 0's bundle
// for rank 1 until rank 0 polls (a goroutine about to wait would), then
// arrive in order in one ring message.
func ExampleEndpoint_Queue() {
	dir, err := os.MkdirTemp(shm.DefaultDir, "plexus-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	got := make(chan string, 3)
	open := func(rank int) *shm.Endpoint {
		ep, err := shm.Open(shm.Config{Rank: rank, Size: 2, JobID: "example", Dir: dir,
			Deliver: func(peer int, h frame.Header, p []byte) { got <- fmt.Sprintf("tag %d: %s", h.Tag, p) }})
		if err != nil {
			panic(err)
		}
		return ep
	}
	a, b := open(0), open(1)
	defer b.Close()
	defer a.Close()
	for i, word := range []string{"one", "two", "three"} {
		a.Queue(context.Background(), 1, frame.Header{Kind: frame.Eager, Tag: int32(i)}, []byte(word))
	}
	a.Poll(1)
	for range 3 {
		fmt.Println(<-got)
	}
	// Output:
	// tag 0: one
	// tag 1: two
	// tag 2: three
}
