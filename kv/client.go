package kv

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/plexus-hpc/plexus/comm"
)

// ClientConfig describes a Client on a rank that is not a replica.
type ClientConfig struct {
	// Replicas is the number of replicas (ranks 0..Replicas-1).
	Replicas int
	// Prefer is the replica tried first (the nearest one), 0 <= Prefer <
	// Replicas; others are tried in turn after it fails.
	Prefer int
	// Index tells apart the clients of one rank, 0 <= Index < 1<<16: it
	// picks the tag replies come on.
	Index int
	// Attempt is how long one replica has to answer before the client
	// tries the next (default 500ms); Timeout is how long a request may
	// take in all before it fails with ErrUnavailable (default 5s).
	Attempt, Timeout time.Duration
}

// Client reads and writes the store from a rank of the job. It sends
// one request at a time: a Client is used by one goroutine at a time
// (make one per goroutine, with distinct Index).
type Client struct {
	w       *comm.World
	cfg     ClientConfig
	id      uint64
	seq     uint64
	minSlot uint64
	at      int
	buf     []byte
}

// NewClient returns a client on w.
func NewClient(w *comm.World, cfg ClientConfig) (*Client, error) {
	if cfg.Replicas < 1 || cfg.Replicas > w.Size() || cfg.Index < 0 || cfg.Index >= 1<<16 {
		return nil, fmt.Errorf("%w: client %d of rank %d for %d replicas in a world of %d",
			ErrConfig, cfg.Index, w.Rank(), cfg.Replicas, w.Size())
	}
	if cfg.Prefer < 0 || cfg.Prefer >= cfg.Replicas {
		return nil, fmt.Errorf("%w: preferred replica %d, the replicas are ranks 0..%d", ErrConfig, cfg.Prefer, cfg.Replicas-1)
	}
	if cfg.Attempt < 0 || cfg.Timeout < 0 {
		return nil, fmt.Errorf("%w: attempt %v, timeout %v: want 0 (the default) or more", ErrConfig, cfg.Attempt, cfg.Timeout)
	}
	if cfg.Attempt == 0 {
		cfg.Attempt = 500 * time.Millisecond
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	id := uint64(w.Rank())<<16 | uint64(cfg.Index)
	return &Client{w: w, cfg: cfg, id: id, at: cfg.Prefer, buf: make([]byte, MaxMessage)}, nil
}

// Get returns key's value at a replica, nil if it has none. Gets are
// sequentially consistent: they see the Sets of every client in one
// order, and a client's Get sees its own earlier Sets and nothing older
// than what it saw before, even after failing over to another replica;
// they may miss Sets that other clients finished recently.
func (c *Client) Get(ctx context.Context, key []byte) ([]byte, error) {
	r, err := c.do(ctx, Request{Op: OpGet, Key: key})
	return r.Value, err
}

// Set writes value under key and returns the value it replaced (nil if
// none). Sets are linearizable: once Set returns, every later Set and
// every later Get of this client sees it. A Set that fails with
// ErrUnavailable may or may not have been applied.
func (c *Client) Set(ctx context.Context, key, value []byte) ([]byte, error) {
	r, err := c.do(ctx, Request{Op: OpSet, Key: key, Value: value})
	return r.Value, err
}

// Slot returns the slot of the last response: the slot of a Set, or the
// slot a Get's replica had applied.
func (c *Client) Slot() uint64 { return c.minSlot }

// Stop tells every replica that this client rank is done (see
// ServeRanks); send it once per client rank.
func (c *Client) Stop(ctx context.Context) error {
	b, _ := Request{Op: OpStop, Client: c.id}.AppendBinary(nil)
	var errs []error
	for r := range c.cfg.Replicas {
		errs = append(errs, c.w.Send(ctx, r, tagRequest, b))
	}
	return errors.Join(errs...)
}

func (c *Client) do(ctx context.Context, req Request) (Response, error) {
	if len(req.Key)+len(req.Value) > MaxKeyValue {
		return Response{}, fmt.Errorf("%w: key and value of %d bytes, limit %d", ErrConfig, len(req.Key)+len(req.Value), MaxKeyValue)
	}
	c.seq++
	req.Client, req.Seq, req.MinSlot, req.ReplyTag = c.id, c.seq, c.minSlot, tagReplyBase+c.cfg.Index
	b, _ := req.AppendBinary(nil)
	deadline := time.Now().Add(c.cfg.Timeout)
	var last error
	for first := true; first || time.Now().Before(deadline); first = false { // at least one attempt
		r, err := c.attempt(ctx, b)
		if err == nil {
			c.minSlot = max(c.minSlot, r.Slot)
			return r, nil
		}
		if ctx.Err() != nil {
			return Response{}, ctx.Err()
		}
		last = err
		c.at = (c.at + 1) % c.cfg.Replicas
		if !errors.Is(err, context.DeadlineExceeded) {
			time.Sleep(min(10*time.Millisecond, time.Until(deadline))) // a lost replica fails at once
		}
	}
	return Response{}, fmt.Errorf("%w: %v request %d of client %#x within %v, last from replica %d: %w",
		ErrUnavailable, req.Op, req.Seq, c.id, c.cfg.Timeout, c.at, last)
}

// attempt sends the request to the current replica and waits for its
// answer to this very request.
func (c *Client) attempt(ctx context.Context, req []byte) (Response, error) {
	actx, cancel := context.WithTimeout(ctx, c.cfg.Attempt)
	defer cancel()
	if err := c.w.Send(actx, c.at, tagRequest, req); err != nil {
		return Response{}, err
	}
	for {
		st, err := c.w.Recv(actx, c.at, tagReplyBase+c.cfg.Index, c.buf)
		if err != nil {
			return Response{}, err
		}
		var r Response
		if err := r.UnmarshalBinary(c.buf[:st.Len]); err != nil || r.Seq != c.seq {
			continue // an answer to an earlier attempt
		}
		return r, nil
	}
}
