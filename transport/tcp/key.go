package tcp

import (
	"context"
	"fmt"
	"time"
)

// jobKey returns the job secret: Config.Secret, or the first key that
// Config.Key returns, waiting for it until deadline or Close. A handshake
// never proceeds without it: there is no fallback key.
func (e *Endpoint) jobKey(deadline time.Time) ([]byte, error) {
	if k := e.key.Load(); k != nil {
		return *k, nil
	}
	if e.cfg.Key == nil {
		return nil, fmt.Errorf("%w: no job secret (a job of one rank has no peers)", ErrAuth)
	}
	ctx, cancel := context.WithDeadline(e.ctx, deadline)
	defer cancel()
	k, err := e.cfg.Key(ctx)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: job secret not known: %w", ErrAuth, err)
	case len(k) < MinSecret:
		return nil, fmt.Errorf("%w: job secret has %d bytes, need at least %d", ErrAuth, len(k), MinSecret)
	}
	e.key.CompareAndSwap(nil, &k)
	return *e.key.Load(), nil
}

// keyed returns the handshake's settings with the job secret (jobKey).
func (e *Endpoint) keyed(deadline time.Time) (authConf, error) {
	k, err := e.jobKey(deadline)
	a := e.auth
	a.secret = k
	return a, err
}
