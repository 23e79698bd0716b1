package pgas

import (
	"encoding/binary"
	"math"
	"reflect"
)

// Number is the element types of the global heap: fixed-size integers
// and floats, so that no pointer crosses ranks and an element is stored
// in little-endian order.
type Number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// kind names a Number's representation in a delegate's message, so that
// the home rank can add two of them without knowing T.
type kind uint8

const (
	kindInt kind = 1 + iota // two's complement, any width
	kindFloat32
	kindFloat64
)

// kindOf returns T's kind and size in bytes.
func kindOf[T Number]() (kind, int) {
	t := reflect.TypeFor[T]()
	switch t.Kind() {
	case reflect.Float32:
		return kindFloat32, 4
	case reflect.Float64:
		return kindFloat64, 8
	}
	return kindInt, int(t.Size())
}

// put writes v at b in little-endian order.
func put[T Number](b []byte, v T) {
	switch k, _ := kindOf[T](); k {
	case kindFloat32:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
	case kindFloat64:
		binary.LittleEndian.PutUint64(b, math.Float64bits(float64(v)))
	default:
		putInt(b, uint64(int64(v)))
	}
}

// get reads a T from b.
func get[T Number](b []byte) T {
	switch k, _ := kindOf[T](); k {
	case kindFloat32:
		return T(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case kindFloat64:
		return T(math.Float64frombits(binary.LittleEndian.Uint64(b)))
	}
	return T(getInt(b))
}

func putInt(b []byte, u uint64) {
	for i := range b {
		b[i] = byte(u >> (8 * i))
	}
}

// getInt reads an integer of len(b) bytes, sign-extended: converting it
// to an unsigned T keeps the low bits, so one routine serves both.
func getInt(b []byte) int64 {
	var u uint64
	for i := range b {
		u |= uint64(b[i]) << (8 * i)
	}
	shift := 64 - 8*len(b)
	return int64(u<<shift) >> shift
}

// add adds delta to the element at b, both of kind k, in place; it is
// the home rank's half of FetchAndAdd.
func add(k kind, b, delta []byte) {
	switch k {
	case kindFloat32:
		s := math.Float32frombits(binary.LittleEndian.Uint32(b)) + math.Float32frombits(binary.LittleEndian.Uint32(delta))
		binary.LittleEndian.PutUint32(b, math.Float32bits(s))
	case kindFloat64:
		s := math.Float64frombits(binary.LittleEndian.Uint64(b)) + math.Float64frombits(binary.LittleEndian.Uint64(delta))
		binary.LittleEndian.PutUint64(b, math.Float64bits(s))
	default:
		putInt(b, uint64(getInt(b)+getInt(delta))) // wraps as Go's integers do
	}
}
