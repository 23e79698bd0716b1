// Package guard bounds what unauthenticated connections can cost a
// listener: how many may be in their handshake at once, in all and from
// one source address (Gate), and how many log records their refusals
// write (Tally). The TCP transport and the launch bootstrap both use it,
// so a flood of strangers neither starves the job's own ranks of
// handshake slots nor fills the log.
//
// A listener admits every connection it accepts and releases it once the
// peer has proven itself (or failed):
//
//	g := guard.NewGate(128, 32)
//	refusals := guard.NewTally(logger, 5, time.Second, "refused connections")
//	defer refusals.Stop()
//	for {
//		nc, err := ln.Accept()
//		...
//		t := g.Admit(guard.Source(nc.RemoteAddr()), func() { nc.Close() })
//		go func() {
//			defer t.Release()
//			if err := handshake(nc); err != nil {
//				refusals.Log(slog.LevelWarn, "refused connection", "from", nc.RemoteAddr(), "err", err)
//			}
//		}()
//	}
package guard
