package frame_test

import (
	"fmt"

	"github.com/plexus-hpc/plexus/transport/frame"
)

func Example() {
	h := frame.Header{Kind: frame.RTS, Tag: 7, Seq: 1, Aux: 1 << 20}
	fmt.Println(h.Kind, h.Kind.User())
	fmt.Println(frame.Ping, frame.Ping.User())
	fmt.Println(frame.Kind(0), frame.Kind(0).Valid())
	// Output:
	// RTS true
	// Ping false
	// Kind(0) false
}
