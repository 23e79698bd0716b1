package task

import (
	"encoding/binary"
	"fmt"
)

// A task on the wire (a SpawnOn's message, a steal's reply) is
//
//	kind u8 | group u64 | fn u32 | func: length u32, args | range: lo i64, n i64, grain i64
//
// little-endian; a message is a run of them. Nothing but a registered
// function's index and bytes crosses ranks.

// kind says what a task runs.
type kind uint8

const (
	kindFunc  kind = 1 + iota // a registered Func with its args
	kindRange                 // iterations [lo, lo+n) of a registered Loop
)

const (
	itemHeader = 1 + 8 + 4
	rangeBody  = 3 * 8
)

// item is one task: queued, running, or decoded from a message.
//
// An item belongs to the queue it is in, or to the worker running it;
// its fields do not change after it is made.
type item struct {
	g     *group // nil while only decoded
	gid   uint64
	kind  kind
	fn    uint32
	args  []byte // kindFunc; owned by the item
	lo, n int64  // kindRange
	grain int64  // kindRange: iterations run without splitting
}

// wireSize is the bytes item takes in a message.
func (it *item) wireSize() int {
	if it.kind == kindRange {
		return itemHeader + rangeBody
	}
	return itemHeader + 4 + len(it.args)
}

// appendItem appends it's wire form to b.
func appendItem(b []byte, it *item) []byte {
	b = append(b, byte(it.kind))
	b = binary.LittleEndian.AppendUint64(b, it.gid)
	b = binary.LittleEndian.AppendUint32(b, it.fn)
	if it.kind == kindRange {
		b = binary.LittleEndian.AppendUint64(b, uint64(it.lo))
		b = binary.LittleEndian.AppendUint64(b, uint64(it.n))
		return binary.LittleEndian.AppendUint64(b, uint64(it.grain))
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(it.args)))
	return append(b, it.args...)
}

// decodeItems decodes a message of tasks, copying their args, and checks
// each function index against the registered funcs and loops. A message
// comes from the network, so a bad one is an error, never a panic.
func decodeItems(b []byte, funcs, loops int) ([]*item, error) {
	var items []*item
	for len(b) > 0 {
		it, rest, err := decodeItem(b)
		if err != nil {
			return nil, err
		}
		if err := checkItem(it, funcs, loops); err != nil {
			return nil, err
		}
		items = append(items, it)
		b = rest
	}
	return items, nil
}

func decodeItem(b []byte) (*item, []byte, error) {
	if len(b) < itemHeader {
		return nil, nil, fmt.Errorf("%w: %d bytes left, a task header is %d", ErrMalformed, len(b), itemHeader)
	}
	it := &item{kind: kind(b[0]), gid: binary.LittleEndian.Uint64(b[1:]), fn: binary.LittleEndian.Uint32(b[9:])}
	b = b[itemHeader:]
	switch it.kind {
	case kindRange:
		if len(b) < rangeBody {
			return nil, nil, fmt.Errorf("%w: loop range of %d bytes, want %d", ErrMalformed, len(b), rangeBody)
		}
		it.lo = int64(binary.LittleEndian.Uint64(b))
		it.n = int64(binary.LittleEndian.Uint64(b[8:]))
		it.grain = int64(binary.LittleEndian.Uint64(b[16:]))
		return it, b[rangeBody:], nil
	case kindFunc:
		if len(b) < 4 {
			return nil, nil, fmt.Errorf("%w: task args length cut short (%d bytes)", ErrMalformed, len(b))
		}
		n := binary.LittleEndian.Uint32(b)
		b = b[4:]
		if uint64(n) > uint64(len(b)) {
			return nil, nil, fmt.Errorf("%w: task args of %d bytes, %d left", ErrMalformed, n, len(b))
		}
		it.args = append([]byte(nil), b[:n]...)
		return it, b[n:], nil
	}
	return nil, nil, fmt.Errorf("%w: task of unknown kind %d", ErrMalformed, it.kind)
}

func checkItem(it *item, funcs, loops int) error {
	switch {
	case it.kind == kindFunc && int64(it.fn) >= int64(funcs):
		return fmt.Errorf("%w: func %d, %d registered", ErrMalformed, it.fn, funcs)
	case it.kind == kindRange && int64(it.fn) >= int64(loops):
		return fmt.Errorf("%w: loop %d, %d registered", ErrMalformed, it.fn, loops)
	case it.kind == kindRange && (it.n < 0 || it.grain < 1 || it.lo > maxInt64-it.n):
		return fmt.Errorf("%w: loop range [%d, +%d) grain %d", ErrMalformed, it.lo, it.n, it.grain)
	}
	return nil
}

const maxInt64 = int64(^uint64(0) >> 1)

// A probe's reply is flags u8 (1 idle, 2 gone) | sent u64 | recv u64 |
// error text.
func appendReport(b []byte, r report) []byte {
	flags := byte(0)
	if r.idle {
		flags |= 1
	}
	if r.gone {
		flags |= 2
	}
	b = append(b, flags)
	b = binary.LittleEndian.AppendUint64(b, r.sent)
	b = binary.LittleEndian.AppendUint64(b, r.recv)
	return append(b, r.err...)
}

func decodeReport(b []byte) (report, error) {
	if len(b) < 17 {
		return report{}, fmt.Errorf("%w: wave report of %d bytes, want at least 17", ErrMalformed, len(b))
	}
	return report{
		idle: b[0]&1 != 0,
		gone: b[0]&2 != 0,
		sent: binary.LittleEndian.Uint64(b[1:]),
		recv: binary.LittleEndian.Uint64(b[9:]),
		err:  string(b[17:]),
	}, nil
}

// outcome is what the master decided about a group, as it sends it to
// the other ranks: state u8 | rank u32 | text.
type outcome struct {
	state state
	rank  int    // the lost rank, or the rank of the failed task
	text  string // the task's error, or the loss
}

// state is where a group stands at its master.
type state uint8

const (
	stateRunning   state = 1 + iota // not decided yet
	stateDone                       // every task finished without error
	stateFailed                     // every task finished, some with an error
	stateLost                       // a rank was lost: the group cannot finish
	stateAbandoned                  // a rank stopped waiting: the group cannot finish
)

func appendOutcome(b []byte, o outcome) []byte {
	b = append(b, byte(o.state))
	b = binary.LittleEndian.AppendUint32(b, uint32(o.rank))
	return append(b, o.text...)
}

func decodeOutcome(b []byte) (outcome, error) {
	if len(b) < 5 || state(b[0]) < stateRunning || state(b[0]) > stateAbandoned {
		return outcome{}, fmt.Errorf("%w: group outcome of %d bytes", ErrMalformed, len(b))
	}
	return outcome{state: state(b[0]), rank: int(int32(binary.LittleEndian.Uint32(b[1:]))), text: string(b[5:])}, nil
}
