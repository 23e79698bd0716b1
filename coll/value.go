package coll

import (
	"context"
	"encoding/binary"
	"math"
)

// Number is the element type of ReduceValue and AllreduceValue: any
// integer or floating-point kind. Values travel as 8 bytes.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64
}

// ReduceValue reduces one value per member with op, which must be
// associative and commutative (see Reduce). The result is valid at the
// root; other members get the zero value.
func ReduceValue[T Number](m *Member, ctx context.Context, v T, op func(a, b T) T) (T, error) {
	var buf [8]byte
	put(buf[:], v)
	err := m.Reduce(ctx, buf[:], buf[:], func(acc, in []byte) {
		put(acc, op(get[T](acc), get[T](in)))
	})
	if err != nil || !m.root {
		return 0, err
	}
	return get[T](buf[:]), nil
}

// AllreduceValue is ReduceValue with the result delivered to every member.
func AllreduceValue[T Number](m *Member, ctx context.Context, v T, op func(a, b T) T) (T, error) {
	var in, out [8]byte
	put(in[:], v)
	err := m.Allreduce(ctx, in[:], out[:], func(acc, in []byte) {
		put(acc, op(get[T](acc), get[T](in)))
	})
	if err != nil {
		return 0, err
	}
	return get[T](out[:]), nil
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
