package comm_test

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/comm"
)

// Two worlds on the in-memory twin: rank 0 sends, rank 1 receives with
// wildcards.
func Example() {
	ctx := context.Background()
	twin := comm.NewTwin(2)
	var ws [2]*comm.World
	for r := range ws {
		w, err := comm.New(comm.Config{Rank: r, Size: 2}, twin.Opener(r))
		if err != nil {
			panic(err)
		}
		defer w.Close()
		ws[r] = w
	}
	go ws[0].Send(ctx, 1, 42, []byte("hello, rank 1"))
	buf := make([]byte, 64)
	st, err := ws[1].Recv(ctx, comm.AnySource, comm.AnyTag, buf)
	if err != nil {
		panic(err)
	}
	fmt.Printf("from %d tag %d: %s\n", st.Source, st.Tag, buf[:st.Len])
	// Output: from 0 tag 42: hello, rank 1
}
