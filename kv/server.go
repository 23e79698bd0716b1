package kv

import (
	"context"

	"github.com/plexus-hpc/plexus/agree"
	"github.com/plexus-hpc/plexus/agree/group"
)

// Reply delivers a Response to the client that sent a request. A Server
// calls it on its replica's goroutine, so it must not block for long.
type Reply func(Response)

// Server is one replica of the store: a Store driven by a group.Replica.
// Gets are answered from the replica's applied state (sequentially
// consistent: see the package doc); Sets are proposed and answered once
// applied here (linearizable). Handle may be called from any goroutine.
type Server struct {
	replica *group.Replica
	store   *Store
	sets    map[uint64]setWaiter // by client: a client has one request at a time
	gets    []getWaiter
}

type setWaiter struct {
	seq   uint64
	reply Reply
}

type getWaiter struct {
	req   Request
	reply Reply
}

// NewServer returns the replica cfg.Agree.ID of a store on net;
// cfg.Apply is the server's own.
func NewServer(cfg group.Config, net group.Net) (*Server, error) {
	s := &Server{store: NewStore(), sets: map[uint64]setWaiter{}}
	cfg.Apply = s.apply
	r, err := group.New(cfg, net)
	if err != nil {
		return nil, err
	}
	s.replica = r
	return s, nil
}

// Replica returns the server's replica (its Deliver is the Net's
// delivery function).
func (s *Server) Replica() *group.Replica { return s.replica }

// Run runs the replica until ctx ends, and returns ctx.Err().
func (s *Server) Run(ctx context.Context) error { return s.replica.Run(ctx) }

// Handle serves req; reply is called once it is answered (never, if the
// replica stops first or the request is older than one the client sent
// since).
func (s *Server) Handle(ctx context.Context, req Request, reply Reply) error {
	return s.replica.Call(ctx, func(n *agree.Node) { s.handle(n, req, reply) })
}

func (s *Server) handle(n *agree.Node, req Request, reply Reply) {
	switch req.Op {
	case OpGet:
		if s.store.Applied() >= req.MinSlot {
			s.answerGet(req, reply)
			return
		}
		s.gets = append(s.gets, getWaiter{req, reply})
	case OpSet:
		if r, ok := s.store.Last(req.Client); ok && r.Seq >= req.Seq {
			if r.Seq == req.Seq {
				reply(Response{Client: req.Client, Seq: r.Seq, Slot: r.Slot, Value: r.Prev})
			}
			return
		}
		s.sets[req.Client] = setWaiter{req.Seq, reply}
		_ = n.Propose(appendCommand(nil, req))
	}
}

func (s *Server) answerGet(req Request, reply Reply) {
	v, slot := s.store.Get(req.Key)
	reply(Response{Client: req.Client, Seq: req.Seq, Slot: slot, Value: v})
}

// apply is the replica's Apply: it applies the entry, answers the Set
// waiting for it here and the Gets that waited for this slot.
func (s *Server) apply(e agree.Entry) {
	req, ok := s.store.Apply(e)
	if ok {
		if w, waiting := s.sets[req.Client]; waiting && w.seq == req.Seq {
			r, _ := s.store.Last(req.Client)
			delete(s.sets, req.Client)
			w.reply(Response{Client: req.Client, Seq: r.Seq, Slot: r.Slot, Value: r.Prev})
		}
	}
	kept := s.gets[:0]
	for _, g := range s.gets {
		if s.store.Applied() >= g.req.MinSlot {
			s.answerGet(g.req, g.reply)
		} else {
			kept = append(kept, g)
		}
	}
	s.gets = kept
}
