package comm

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// twinWorlds returns n worlds on one twin, closed when the test ends.
func twinWorlds(t testing.TB, n int, cfg Config) ([]*World, *twin) {
	t.Helper()
	tw := newTwin(n)
	ws := make([]*World, n)
	for i := range ws {
		c := cfg
		c.Rank, c.Size = i, n
		w, err := openWorld(c, tw.Opener(i))
		if err != nil {
			t.Fatal(err)
		}
		ws[i] = w
	}
	t.Cleanup(func() {
		for _, w := range ws {
			w.Close()
		}
	})
	return ws, tw
}

// testCtx is a context that ends well before the test binary's timeout,
// so that a hang fails one test with a message.
func testCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// payload returns n bytes that depend on every argument, so a message
// delivered to the wrong receive is caught.
func payload(src, tag, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(src*131 + tag*31 + i*7 + i>>8)
	}
	return b
}

// check compares a received message with the one that was sent.
func check(got []byte, src, tag, n int) error {
	want := payload(src, tag, n)
	if len(got) != n {
		return fmt.Errorf("from %d tag %d: got %d bytes, want %d", src, tag, len(got), n)
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("from %d tag %d: byte %d is %d, want %d", src, tag, i, got[i], want[i])
		}
	}
	return nil
}
