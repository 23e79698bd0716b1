//go:build linux

package comm_test

import (
	"context"
	"fmt"
	"os"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/commtest"
	"github.com/plexus-hpc/plexus/transport/shm"
)

// Two serialized worlds over shared memory, here in one process: each is
// used by one goroutine, which receives inside its own calls. (Ranks that
// JoinWith comm.Config{Serialized: true} get the passive endpoint by
// themselves when they all share a host.)
func ExampleConfig_serialized() {
	dir, err := os.MkdirTemp(shm.DefaultDir, "plexus-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	var ws [2]*comm.World
	for r := range ws {
		sc := shm.Config{Rank: r, Size: 2, JobID: "example", Dir: dir, Passive: true}
		w, err := commtest.SHM(comm.Config{Rank: r, Size: 2, Serialized: true}, sc)
		if err != nil {
			panic(err)
		}
		defer w.Close()
		ws[r] = w
	}
	ctx := context.Background()
	done := make(chan error)
	go func() { // rank 0's goroutine: the only one that uses ws[0]
		done <- ws[0].Send(ctx, 1, 5, []byte("hello, serially"))
	}()
	buf := make([]byte, 64)
	st, err := ws[1].Recv(ctx, 0, 5, buf) // rank 1's: this goroutine
	if err != nil {
		panic(err)
	}
	fmt.Println(ws[1].Serialized(), string(buf[:st.Len]), <-done)
	// Output: true hello, serially <nil>
}
