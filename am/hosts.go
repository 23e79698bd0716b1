package am

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/plexus-hpc/plexus/comm"
)

// leaderOf returns the lowest rank on this rank's host, as w's transports
// tell: a rank reached over shared memory shares the host. A world that
// does not know its peers' transports ("") puts each rank on a host of
// its own.
func leaderOf(w *comm.World) int {
	for p := range w.Size() {
		if t := w.Transport(p); t == "self" || t == comm.TransportSHM {
			return p
		}
	}
	return w.Rank()
}

// exchangeHosts gives every rank every rank's leader through rank 0,
// which also checks that all ranks agree on NodeAggregation. It follows
// handshake on the same tag, so no other message of New is in flight.
func exchangeHosts(ctx context.Context, w *comm.World, tag, leader int, on bool) ([]int, error) {
	msg := binary.LittleEndian.AppendUint32(nil, uint32(leader))
	if on {
		msg = append(msg, 1)
	} else {
		msg = append(msg, 0)
	}
	if w.Rank() != 0 {
		if err := w.Send(ctx, 0, tag, msg); err != nil {
			return nil, fmt.Errorf("am: host exchange with rank 0: %w", err)
		}
		return recvLeaders(ctx, w, tag)
	}
	return gatherLeaders(ctx, w, tag, msg)
}

// gatherLeaders is rank 0's side: it collects every rank's leader and
// flag, then sends each rank the leaders or the disagreement.
func gatherLeaders(ctx context.Context, w *comm.World, tag int, mine []byte) ([]int, error) {
	leaders := make([]int, w.Size())
	leaders[0] = int(binary.LittleEndian.Uint32(mine))
	var bad string
	for r := 1; r < w.Size(); r++ {
		buf := make([]byte, 5)
		st, err := w.Recv(ctx, r, tag, buf)
		if err != nil {
			return nil, fmt.Errorf("am: host exchange with rank %d: %w", r, err)
		}
		l := int(binary.LittleEndian.Uint32(buf))
		switch {
		case st.Len != 5 || l < 0 || l >= w.Size():
			bad = fmt.Sprintf("rank %d sent a host entry of %d bytes, leader %d", r, st.Len, l)
		case buf[4] != mine[4] && bad == "":
			bad = fmt.Sprintf("rank %d has NodeAggregation %v, rank 0 %v", r, buf[4] == 1, mine[4] == 1)
		}
		leaders[r] = l
	}
	reply := []byte{0}
	for _, l := range leaders {
		reply = binary.LittleEndian.AppendUint32(reply, uint32(l))
	}
	if bad != "" {
		reply = append([]byte{1}, bad...)
	}
	for r := 1; r < w.Size(); r++ {
		if err := w.Send(ctx, r, tag, reply); err != nil {
			return nil, fmt.Errorf("am: host exchange with rank %d: %w", r, err)
		}
	}
	if bad != "" {
		return nil, fmt.Errorf("%w: %s", ErrMismatch, bad)
	}
	return leaders, nil
}

func recvLeaders(ctx context.Context, w *comm.World, tag int) ([]int, error) {
	buf := make([]byte, 1+4*w.Size()+256)
	st, err := w.Recv(ctx, 0, tag, buf)
	if err != nil {
		return nil, fmt.Errorf("am: host exchange with rank 0: %w", err)
	}
	buf = buf[:st.Len]
	if len(buf) > 0 && buf[0] == 1 {
		return nil, fmt.Errorf("%w: %s", ErrMismatch, buf[1:])
	}
	if len(buf) != 1+4*w.Size() {
		return nil, fmt.Errorf("am: host exchange: %d bytes from rank 0, want %d", len(buf), 1+4*w.Size())
	}
	leaders := make([]int, w.Size())
	for r := range leaders {
		leaders[r] = int(binary.LittleEndian.Uint32(buf[1+4*r:]))
		if leaders[r] >= w.Size() {
			return nil, fmt.Errorf("am: host exchange: rank 0 gave rank %d leader %d, world of %d", r, leaders[r], w.Size())
		}
	}
	return leaders, nil
}
