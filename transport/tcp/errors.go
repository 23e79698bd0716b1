package tcp

import "errors"

var (
	// ErrMalformed reports bytes that are not a frame of this protocol: a
	// wrong magic byte or version, an unknown kind, or a frame that breaks
	// the handshake's or the connection's rules. The connection that
	// carried it is closed.
	ErrMalformed = errors.New("tcp: malformed frame")
	// ErrTooLarge reports a payload longer than the configured MaxPayload,
	// whether a caller tried to send it or a peer announced it.
	ErrTooLarge = errors.New("tcp: payload larger than MaxPayload")
	// ErrAuth reports a failed handshake: a wrong MAC, a wrong job, a rank
	// out of range or already connected, or a refusal by the acceptor.
	ErrAuth = errors.New("tcp: authentication failed")
	// ErrClosed reports an operation on a closed Endpoint.
	ErrClosed = errors.New("tcp: endpoint closed")
	// ErrPeerLost reports a peer whose connection ended: it said Bye, the
	// connection dropped or went silent, or it sent a malformed frame.
	// Once lost, a peer stays lost for the life of the Endpoint.
	ErrPeerLost = errors.New("tcp: peer lost")
)
