package pgas

import (
	"context"
	"testing"

	"github.com/plexus-hpc/plexus/am"
)

// FuzzHome feeds arbitrary delegate args, as the network might, to every
// home handler: each returns an error or a reply, and never panics.
func FuzzHome(f *testing.F) {
	f.Add(uint8(opAdd), []byte{1, 8, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0})
	f.Add(uint8(opCAS), []byte{3, 8, 0xf8, 3, 0, 0, 0, 0, 0, 0})
	f.Add(uint8(opRead), []byte{2, 4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
	f.Add(uint8(opWrite), []byte{})
	f.Add(uint8(opGet), appendGet(nil, 1000, 100))                             // past the heap's end
	f.Add(uint8(opPut), append(appendGet(nil, 1020, 0)[:putHead], 1, 2, 3, 4)) // the last 4 bytes
	var reg am.Registry
	h, err := New(&reg, Config{HeapBytes: 1024})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, op uint8, args []byte) {
		h.hs[int(op)%nops](context.Background(), 0, args)
	})
}
