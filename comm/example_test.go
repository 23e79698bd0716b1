package comm_test

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/commtest"
)

// Two worlds in one process, on commtest's in-memory twin (in a job each
// rank is a process that calls comm.Join): rank 0 sends, rank 1 receives
// with wildcards.
func Example() {
	ctx := context.Background()
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
	go ws[0].Send(ctx, 1, 42, []byte("hello, rank 1"))
	buf := make([]byte, 64)
	st, err := ws[1].Recv(ctx, comm.AnySource, comm.AnyTag, buf)
	if err != nil {
		panic(err)
	}
	fmt.Printf("from %d tag %d: %s\n", st.Source, st.Tag, buf[:st.Len])
	// Output: from 0 tag 42: hello, rank 1
}

// A window of non-blocking receives and sends, as the OSU message-rate
// test posts them: WaitallInto with nil statuses waits without
// allocating, and Free hands the finished requests back, so that the next
// window reuses them.
func ExampleFree() {
	ctx := context.Background()
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
	const window = 8
	in := make([]byte, window)
	recvs, sends := make([]*comm.Request, window), make([]*comm.Request, window)
	for round := range 3 {
		for i := range window {
			recvs[i], _ = ws[1].Irecv(0, i, in[i:i+1])
			sends[i], _ = ws[0].Isend(1, i, []byte{byte(round*window + i)})
		}
		if err := comm.WaitallInto(ctx, nil, sends...); err != nil {
			panic(err)
		}
		if err := comm.WaitallInto(ctx, nil, recvs...); err != nil {
			panic(err)
		}
		comm.Free(sends...)
		comm.Free(recvs...)
		fmt.Println(in)
	}
	// Output:
	// [0 1 2 3 4 5 6 7]
	// [8 9 10 11 12 13 14 15]
	// [16 17 18 19 20 21 22 23]
}
