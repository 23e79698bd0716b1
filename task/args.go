package task

import (
	"encoding/binary"
	"fmt"
)

// Ints encodes int64s as a task's args, for the common case of tasks
// that take a few numbers (Grappa's tasks took three words).
func Ints(vs ...int64) []byte {
	b := make([]byte, 0, 8*len(vs))
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	return b
}

// Int returns the i-th int64 of args made by Ints, or an error if args
// is too short; args come from another rank, so they are checked.
func Int(args []byte, i int) (int64, error) {
	if i < 0 || len(args) < 8*(i+1) {
		return 0, fmt.Errorf("%w: int %d of %d bytes of args", ErrMalformed, i, len(args))
	}
	return int64(binary.LittleEndian.Uint64(args[8*i:])), nil
}
