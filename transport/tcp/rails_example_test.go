package tcp_test

import (
	"fmt"

	"github.com/plexus-hpc/plexus/transport/tcp"
)

// An Endpoint with rails publishes its main address followed by its
// rails' (ep.Addr() and ep.RailAddrs()); without rails the entry is the
// main address alone, as it always was.
func ExampleJoinAddr() {
	fmt.Println(tcp.JoinAddr("10.251.0.1:40117", []string{"10.252.1.1:39001", "10.252.2.1:41523"}))
	fmt.Println(tcp.JoinAddr("10.251.0.1:40117", nil))
	// Output:
	// 10.251.0.1:40117;10.252.1.1:39001;10.252.2.1:41523
	// 10.251.0.1:40117
}
