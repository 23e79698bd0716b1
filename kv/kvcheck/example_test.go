package kvcheck_test

import (
	"fmt"

	"github.com/plexus-hpc/plexus/kv/kvcheck"
)

// Two Sets one after the other, where the second claims it replaced
// nothing: the first write was lost.
func Example() {
	var h kvcheck.History
	h.Add(kvcheck.Op{Client: 0, Kind: kvcheck.Set, Key: []byte("k"), Value: []byte("a"), Call: 0, Return: 10, Slot: 1})
	h.Add(kvcheck.Op{Client: 1, Kind: kvcheck.Set, Key: []byte("k"), Value: []byte("b"), Call: 20, Return: 30, Slot: 2})
	fmt.Println(h.Check())
	// Output: kvcheck: history violates the consistency model: the 2 Sets are not linearizable
}
