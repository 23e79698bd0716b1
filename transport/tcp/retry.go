package tcp

import (
	"errors"
	"io"
	"net"
	"syscall"
	"time"
)

// Backoff between dials of one attempt.
const (
	firstRetry = 5 * time.Millisecond
	maxRetry   = 250 * time.Millisecond
)

// dialRetry is dialConn, tried again with backoff while it fails the way
// an acceptor shedding a flood fails it (shed) and the retry window lasts:
// the longer of HandshakeTimeout and PeerTimeout from the first try.
func (e *Endpoint) dialRetry(rank int) (*conn, error) {
	until := time.Now().Add(max(e.cfg.HandshakeTimeout, e.cfg.PeerTimeout))
	wait := firstRetry
	for {
		c, err := e.dialConn(rank)
		if err == nil || !shed(err) || time.Now().Add(wait).After(until) {
			return c, err
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-e.ctx.Done():
			t.Stop()
			return nil, ErrClosed
		}
		wait = min(2*wait, maxRetry)
	}
}

// shed reports whether a failed dial may succeed if tried again: the
// connection was closed, reset or timed out before the acceptor answered,
// as when its gate ended the handshake to admit newer ones, or its listen
// queue was full. A refused connection (nothing listens: the rank is
// gone) and a refusal by the acceptor are final.
func shed(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, ErrAuth) || errors.Is(err, ErrClosed) {
		return false
	}
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.As(err, &ne) && ne.Timeout()
}
