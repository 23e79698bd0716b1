package comm

import (
	"testing"
	"time"
)

// TestCreditReturns streams many times a peer's credit of small messages
// to receives already posted. Credit comes back asynchronously (the
// sender goes rendezvous while it waits for it), but once the stream
// ends the sender may be short of at most what the receiver keeps before
// returning it: under a batch in owed, under an eighth of one gathered by
// the delivery path.
func TestCreditReturns(t *testing.T) {
	ws, _ := twinWorlds(t, 2, Config{UnexpectedBudget: 16 << 10})
	ctx := testCtx(t)
	share, batch := ws[0].cfg.share(), ws[1].batch
	n := int(10 * share / (8 + msgOverhead))
	buf := make([]byte, 8)
	for range n {
		r, err := ws[1].Irecv(0, 1, buf)
		if err != nil {
			t.Fatal(err)
		}
		if err := ws[0].Send(ctx, 1, 1, buf); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		Free(r)
	}
	limit := batch + max(1, batch/8)
	deadline := time.Now().Add(5 * time.Second)
	for share-ws[0].peers[1].credit.Load() >= limit && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if short := share - ws[0].peers[1].credit.Load(); short >= limit {
		t.Errorf("sender short of %d bytes of credit after the stream, want under %d", short, limit)
	}
}
