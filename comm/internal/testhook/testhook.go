// Package testhook lets package comm/commtest make worlds over transports
// that package comm keeps unexported. Package comm sets the variables when
// it is initialised; commtest, which imports comm, asserts them to the
// function types written beside each. Nothing else may use them.
package testhook

// The hooks, each a func value of the type in its comment.
var (
	// Twin: func(n int) (open func(rank int, cfg comm.Config) (*comm.World, error), kill func(rank int)).
	Twin any
	// SHM: func(cfg comm.Config, sc shm.Config) (*comm.World, error).
	SHM any
	// TCP: func(cfg comm.Config, tc tcp.Config, ready func(*tcp.Endpoint)) (*comm.World, error).
	TCP any
	// Hosts: func(cfg comm.Config, hosts []string, tc tcp.Config, ready func(*tcp.Endpoint), sc shm.Config) (*comm.World, error).
	Hosts any
)
