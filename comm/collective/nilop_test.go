package collective

import (
	"context"
	"errors"
	"testing"

	"github.com/plexus-hpc/plexus/coll"
)

// TestNilOp: a reduction without an operation is refused before the
// communicator is touched (a nil Comm shows it), with coll.ErrArgument,
// instead of crashing the process inside the collective.
func TestNilOp(t *testing.T) {
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"Reduce":          func() error { return (*Comm)(nil).Reduce(ctx, 0, make([]byte, 8), make([]byte, 8), nil) },
		"Allreduce":       func() error { return (*Comm)(nil).Allreduce(ctx, make([]byte, 8), make([]byte, 8), nil) },
		"ReduceValues":    func() error { return ReduceValues[int64](ctx, nil, 0, []int64{1}, make([]int64, 1), nil) },
		"AllreduceValues": func() error { return AllreduceValues[float64](ctx, nil, []float64{1}, make([]float64, 1), nil) },
	} {
		if err := call(); !errors.Is(err, coll.ErrArgument) {
			t.Errorf("%s with a nil op: %v, want coll.ErrArgument", name, err)
		}
	}
}
