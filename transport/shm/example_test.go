package shm_test

import (
	"context"
	"fmt"
	"os"

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
			Deliver: func(peer int, h shm.Header, p []byte) { got <- fmt.Sprintf("from %d tag %d: %s", peer, h.Tag, p) }})
		if err != nil {
			panic(err)
		}
		return ep
	}
	a, b := open(0), open(1)
	defer b.Close()
	defer a.Close()
	a.Send(context.Background(), 1, shm.Header{Kind: shm.Eager, Tag: 7}, []byte("hello"))
	fmt.Println(<-got)
	// Output: from 0 tag 7: hello
}
