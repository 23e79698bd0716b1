package kvcheck

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
)

// ErrViolation reports a history that breaks the store's guarantees.
var ErrViolation = errors.New("kvcheck: history violates the consistency model")

// Kind is Get or Set.
type Kind uint8

// The kinds of operations.
const (
	Get Kind = 1 + iota
	Set
)

// Op is one operation of a history: Value is what a Set wrote, Out what
// a Get read or a Set replaced (nil: no value), Call and Return are
// times in nanoseconds from one clock, Slot the slot the response
// reported. A Failed operation got no answer: a failed Set may or may
// not have been applied.
type Op struct {
	Client       int
	Kind         Kind
	Key, Value   []byte
	Out          []byte
	Call, Return int64
	Slot         uint64
	Failed       bool
}

// History is a list of operations.
type History struct {
	mu    sync.Mutex
	ops   []Op
	start time.Time
}

// Now returns the time since the history's first call to Now, in
// nanoseconds, from the monotonic clock.
func (h *History) Now() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.start.IsZero() {
		h.start = time.Now()
	}
	return int64(time.Since(h.start))
}

// Add records op.
func (h *History) Add(op Op) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ops = append(h.ops, op)
}

// Ops returns a copy of the operations.
func (h *History) Ops() []Op {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Op(nil), h.ops...)
}

// Check checks the Sets for linearizability and the Gets for
// sequential consistency.
func (h *History) Check() error {
	ops := h.Ops()
	return errors.Join(CheckSets(ops), CheckGets(ops))
}

type setIn struct {
	value   string
	unknown bool
}

// CheckSets checks that the Sets of ops are linearizable as writes of a
// register per key that return the value they replaced.
func CheckSets(ops []Op) error {
	var hist []porcupine.Operation
	for _, op := range ops {
		if op.Kind != Set {
			continue
		}
		po := porcupine.Operation{ClientId: op.Client, Input: keyed{string(op.Key), setIn{string(op.Value), op.Failed}},
			Call: op.Call, Output: outString(op.Out), Return: op.Return}
		if op.Failed {
			po.Return = math.MaxInt64
		}
		hist = append(hist, po)
	}
	res := porcupine.CheckOperationsTimeout(registerModel(), hist, time.Minute)
	if res == porcupine.Illegal {
		return fmt.Errorf("%w: the %d Sets are not linearizable", ErrViolation, len(hist))
	}
	return nil
}

type keyed struct {
	key string
	in  setIn
}

// outString maps nil (no value) to a string no Set writes.
func outString(b []byte) string {
	if b == nil {
		return "\x00none"
	}
	return string(b)
}

func registerModel() porcupine.Model {
	return porcupine.Model{
		Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
			by := map[string][]porcupine.Operation{}
			var keys []string
			for _, o := range h {
				k := o.Input.(keyed).key
				if _, ok := by[k]; !ok {
					keys = append(keys, k)
				}
				by[k] = append(by[k], o)
			}
			var out [][]porcupine.Operation
			for _, k := range keys {
				out = append(out, by[k])
			}
			return out
		},
		Init: func() any { return "\x00none" },
		Step: func(state, input, output any) (bool, any) {
			in := input.(keyed).in
			return in.unknown || output.(string) == state.(string), in.value
		},
	}
}
