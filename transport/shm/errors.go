package shm

import "errors"

var (
	// ErrBadSegment reports a segment file this build must not use: one
	// not private to this user (a symbolic link, not a regular file,
	// another owner, a mode other than 0600), a wrong magic number or
	// version, another job's id, or a size, rank count or ring size other
	// than the Config asks for.
	ErrBadSegment = errors.New("shm: bad segment")
	// ErrTooLarge reports a payload longer than Config.MaxPayload, whether
	// a caller tried to send it or a peer announced it.
	ErrTooLarge = errors.New("shm: payload larger than MaxPayload")
	// ErrClosed reports an operation on a closed Endpoint.
	ErrClosed = errors.New("shm: endpoint closed")
	// ErrPeerLost reports a peer that closed its Endpoint, whose process
	// died or stopped beating, or that wrote a malformed frame. Once lost,
	// a peer stays lost for the life of the Endpoint.
	ErrPeerLost = errors.New("shm: peer lost")
	// ErrNoPull reports that this rank cannot read a peer's memory: the
	// probe failed (a ptrace policy such as Yama's ptrace_scope, a process
	// of another user or namespace), or Config.NoPull is set.
	ErrNoPull = errors.New("shm: cannot read the peer's memory")
	// ErrUnsupported reports an operating system without the shared-memory
	// transport (it needs Linux: shared mappings, FIFOs, process_vm_readv).
	ErrUnsupported = errors.New("shm: not supported on this operating system")
)
