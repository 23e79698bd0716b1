package kv

import (
	"context"
	"log/slog"

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
	log     *slog.Logger
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
// cfg.Apply, Snapshot, Restore and OnTick are the server's own (set
// cfg.CompactEvery to compact the log).
func NewServer(cfg group.Config, net group.Net) (*Server, error) {
	s := &Server{store: NewStore(), sets: map[uint64]setWaiter{}, log: cfg.Log}
	if s.log == nil {
		s.log = slog.Default()
	}
	cfg.Apply, cfg.Restore, cfg.OnTick = s.apply, s.restore, s.answerGets
	cfg.Snapshot = func() []byte { return s.store.Snapshot() }
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
		if s.servable(req) {
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
	s.answerGets()
}

// servable reports whether a Get can be answered here: the replica is
// not recovering from a restart (its state would be older than what it
// served before) and has applied what the client saw.
func (s *Server) servable(req Request) bool {
	return s.store.Applied() >= req.MinSlot && !s.replica.Status().Recovering
}

// answerGets answers the waiting Gets that are servable now.
func (s *Server) answerGets() {
	kept := s.gets[:0]
	for _, g := range s.gets {
		if s.servable(g.req) {
			s.answerGet(g.req, g.reply)
		} else {
			kept = append(kept, g)
		}
	}
	s.gets = kept
}

// restore is the replica's Restore: the store becomes the snapshot.
func (s *Server) restore(snap agree.Snapshot) {
	if err := s.store.Restore(snap); err != nil {
		s.log.Error("kv: snapshot refused", "replica", s.replica.ID(), "err", err)
		return
	}
	s.answerGets()
}

// Restart makes the server lose its state, as a restarted process
// would, inside the running process: the store is emptied, the requests
// waiting here are dropped (their clients try again, here or at another
// replica) and the replica recovers from the others (group.Replica's
// Restart). Until it has caught up it answers no Get.
func (s *Server) Restart(ctx context.Context) error {
	return s.replica.Restart(ctx, func() {
		s.store, s.sets, s.gets = NewStore(), map[uint64]setWaiter{}, nil
	})
}
