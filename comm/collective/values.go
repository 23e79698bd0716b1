package collective

import (
	"context"
	"encoding/binary"
	"math"

	"github.com/plexus-hpc/plexus/coll"
)

// Values travel as 8 bytes each, as in coll.ReduceValues: floats as
// float64 bits, which hold every float32 exactly, integers as their 64-bit
// two's complement. Eight divides 64, so Reduce may cut a vector anywhere
// its pieces need.

// ReduceValues combines the ranks' in vectors element by element with op,
// which must be associative and commutative, into root's out (len(in)
// values; untouched elsewhere). Every rank passes an in of the same length.
func ReduceValues[T coll.Number](ctx context.Context, c *Comm, root int, in, out []T, op func(a, b T) T) error {
	if op == nil && len(in) > 0 {
		return errNilOp
	}
	var res []byte
	if c.Rank() == root {
		if len(out) < len(in) {
			return errShort(len(out)*8, len(in)*8)
		}
		res = make([]byte, 8*len(in))
	}
	f := foldFor(&c.vfold, op)
	err := c.Reduce(ctx, root, encode(in), res, f.fold)
	f.release()
	if err != nil {
		return err
	}
	decode(res, out)
	return nil
}

// AllreduceValues is ReduceValues with the result in every rank's out.
func AllreduceValues[T coll.Number](ctx context.Context, c *Comm, in, out []T, op func(a, b T) T) error {
	if op == nil && len(in) > 0 {
		return errNilOp
	}
	if len(out) < len(in) {
		return errShort(len(out)*8, len(in)*8)
	}
	enc, res := c.valueBufs(len(in))
	encodeInto(enc, in)
	f := foldFor(&c.vfold, op)
	err := c.Allreduce(ctx, enc, res, f.fold)
	f.release()
	if err != nil {
		return err
	}
	decode(res, out)
	return nil
}

// valueBufs returns two buffers of 8n bytes from the communicator's
// values space, reused from call to call (a Comm's collectives run one at
// a time): an allocation per call was a tenth of a 2-rank AllreduceValues.
func (c *Comm) valueBufs(n int) (enc, res []byte) {
	if cap(c.values) < 16*n {
		c.values = make([]byte, 16*n)
	}
	return c.values[:8*n], c.values[8*n : 16*n]
}

func encode[T coll.Number](vs []T) []byte {
	b := make([]byte, 8*len(vs))
	encodeInto(b, vs)
	return b
}

// encodeInto writes vs into b, which holds 8 bytes per value.
func encodeInto[T coll.Number](b []byte, vs []T) {
	for i, v := range vs {
		put(b[8*i:], v)
	}
}

// decode fills out from b, as many values as b holds.
func decode[T coll.Number](b []byte, out []T) {
	for i := range len(b) / 8 {
		out[i] = get[T](b[8*i:])
	}
}

func isFloat[T coll.Number]() bool {
	var one T = 1
	return one/2 != 0
}

func put[T coll.Number](b []byte, v T) {
	if isFloat[T]() {
		binary.LittleEndian.PutUint64(b, math.Float64bits(float64(v)))
		return
	}
	binary.LittleEndian.PutUint64(b, uint64(v))
}

func get[T coll.Number](b []byte) T {
	x := binary.LittleEndian.Uint64(b)
	if isFloat[T]() {
		return T(math.Float64frombits(x))
	}
	return T(int64(x))
}
