// Package frame defines what every Plexus transport carries: a frame's
// Header and the Kind of frame it is. The comm layer fills Headers in and
// reads them; transport/tcp and transport/shm encode them, each in its own
// byte layout (docs/wire-format.md, docs/shm-format.md), and deliver them
// untouched. Their Endpoints take and deliver these very types, so one
// definition serves every layer and no adapter converts between them.
//
//	h := frame.Header{Kind: frame.RTS, Tag: 7, Seq: id, Aux: uint64(len(msg))}
//	err := ep.Send(ctx, peer, h, nil) // ep a *tcp.Endpoint or a *shm.Endpoint
//
// A receiver switches on h.Kind; Kind.User tells the comm layer's kinds
// from transport/tcp's own, and Kind.Valid refuses unknown numbers.
package frame
