package coll

import (
	"context"
	"encoding/binary"
	"math"
)

// Number is the element type of ReduceValues and AllreduceValues: any
// integer or floating-point kind. Values travel as 8 bytes each, so a
// team reduces at most MaxMessage/8 of them at once.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64
}

// ReduceValues combines the members' in vectors element by element with
// op into the root's out (len(in) values; untouched elsewhere, where it
// may be nil). Every member passes an in of the same length, at most the
// team's MaxMessage/8 values. op must be associative and commutative:
// members fold their children's values in arrival order (see Reduce, its
// byte-level form for types other than numbers).
func ReduceValues[T Number](ctx context.Context, m *Member, in, out []T, op func(a, b T) T) error {
	if op == nil && len(in) > 0 {
		return m.fail(errNilOp)
	}
	if m.root && len(out) < len(in) {
		return m.fail(errShortOut(8*len(out), 8*len(in)))
	}
	enc, res, err := m.valueBufs(len(in))
	if err != nil {
		return err
	}
	encode(enc, in)
	if err := m.Reduce(ctx, enc, res, foldValues(op)); err != nil {
		return err
	}
	if m.root {
		decode(res, out)
	}
	return nil
}

// AllreduceValues is ReduceValues with the result in every member's out,
// which must hold len(in) values everywhere (see Allreduce, its
// byte-level form).
func AllreduceValues[T Number](ctx context.Context, m *Member, in, out []T, op func(a, b T) T) error {
	if op == nil && len(in) > 0 {
		return m.fail(errNilOp)
	}
	if len(out) < len(in) {
		return m.fail(errShortOut(8*len(out), 8*len(in)))
	}
	enc, res, err := m.valueBufs(len(in))
	if err != nil {
		return err
	}
	encode(enc, in)
	if err := m.Allreduce(ctx, enc, res, foldValues(op)); err != nil {
		return err
	}
	decode(res, out)
	return nil
}

// valueBufs returns two buffers of 8n bytes from the member's values
// space, reused from call to call (the member's goroutine alone calls
// the Values functions), or ErrTooLarge when n values exceed MaxMessage.
func (m *Member) valueBufs(n int) (enc, res []byte, err error) {
	if err := m.checkSize(8 * n); err != nil {
		return nil, nil, err
	}
	if cap(m.values) < 16*n {
		m.values = make([]byte, 16*n)
	}
	return m.values[:8*n], m.values[8*n : 16*n], nil
}

// foldValues turns op on values into op on their encodings.
func foldValues[T Number](op func(a, b T) T) func(acc, in []byte) {
	return func(acc, in []byte) {
		for i := 0; i+8 <= len(acc); i += 8 {
			put(acc[i:], op(get[T](acc[i:]), get[T](in[i:])))
		}
	}
}

// encode writes vs into b, which holds 8 bytes per value.
func encode[T Number](b []byte, vs []T) {
	for i, v := range vs {
		put(b[8*i:], v)
	}
}

// decode fills out from b, as many values as b holds.
func decode[T Number](b []byte, out []T) {
	for i := range len(b) / 8 {
		out[i] = get[T](b[8*i:])
	}
}

// isFloat reports whether T is a floating-point kind: only there does
// one half differ from zero.
func isFloat[T Number]() bool {
	var one T = 1
	return one/2 != 0
}

// put encodes v in 8 bytes: floats as float64 bits, which hold every
// float32 exactly; integers as their 64-bit two's complement.
func put[T Number](b []byte, v T) {
	if isFloat[T]() {
		binary.LittleEndian.PutUint64(b, math.Float64bits(float64(v)))
		return
	}
	binary.LittleEndian.PutUint64(b, uint64(v))
}

// get decodes what put encoded.
func get[T Number](b []byte) T {
	x := binary.LittleEndian.Uint64(b)
	if isFloat[T]() {
		return T(math.Float64frombits(x))
	}
	return T(int64(x))
}
