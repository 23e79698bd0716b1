package commtest_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/commtest"
)

// A rank that crashes: the receive waiting on it fails with
// comm.ErrPeerLost instead of hanging.
func ExampleTwin_Kill() {
	twin := commtest.NewTwin(2)
	var ws [2]*comm.World
	for r := range ws {
		w, err := twin.World(r, comm.Config{})
		if err != nil {
			panic(err)
		}
		defer w.Close()
		ws[r] = w
	}
	done := make(chan error)
	go func() {
		_, err := ws[1].Recv(context.Background(), 0, 7, make([]byte, 8))
		done <- err
	}()
	twin.Kill(0)
	fmt.Println(errors.Is(<-done, comm.ErrPeerLost))
	// Output: true
}
