package collective

import "github.com/plexus-hpc/plexus/coll"

// valueFold is a communicator's reusable op on the encodings of values:
// the closure Reduce and Allreduce call is made once per element type and
// reads the op of the current call from the struct. A fresh closure per
// call escaped to the heap through the op parameter: one allocation per
// ReduceValues or AllreduceValues, a sizeable part of a 2-rank allreduce.
type valueFold[T coll.Number] struct {
	op   func(a, b T) T // the current call's; nil between calls
	fold func(acc, in []byte)
}

// foldFor returns the fold kept in *slot for T, made on first use, with
// op as its operation. Only the goroutine running the communicator's
// collectives may call it; call release when the collective returns.
func foldFor[T coll.Number](slot *any, op func(a, b T) T) *valueFold[T] {
	f, ok := (*slot).(*valueFold[T])
	if !ok {
		f = new(valueFold[T])
		f.fold = func(acc, in []byte) {
			for i := 0; i+8 <= len(acc); i += 8 {
				put(acc[i:], f.op(get[T](acc[i:]), get[T](in[i:])))
			}
		}
		*slot = f
	}
	f.op = op
	return f
}

// release drops the op, so that the communicator does not keep what it
// refers to alive.
func (f *valueFold[T]) release() { f.op = nil }
