package task

import (
	"errors"
	"reflect"
	"testing"
)

func TestItemRoundTrip(t *testing.T) {
	items := []*item{
		{gid: 7, kind: kindFunc, fn: 1, args: []byte("hello")},
		{gid: 1 << 40, kind: kindRange, fn: 0, lo: -5, n: 1000, grain: 16},
		{gid: 0, kind: kindFunc, fn: 0}, // no args decode as nil
	}
	var b []byte
	size := 0
	for _, it := range items {
		b = appendItem(b, it)
		size += it.wireSize()
	}
	if len(b) != size {
		t.Errorf("wire size %d, wireSize says %d", len(b), size)
	}
	got, err := decodeItems(b, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, items) {
		t.Errorf("decoded %+v, want %+v", got, items)
	}
}

func TestDecodeBad(t *testing.T) {
	good := appendItem(nil, &item{kind: kindFunc, fn: 0, args: []byte("abc")})
	rng := appendItem(nil, &item{kind: kindRange, fn: 0, lo: 0, n: 10, grain: 1})
	for name, b := range map[string][]byte{
		"short header":  good[:5],
		"short args":    good[:len(good)-1],
		"unknown kind":  append([]byte{9}, good[1:]...),
		"unknown func":  appendItem(nil, &item{kind: kindFunc, fn: 3}),
		"unknown loop":  appendItem(nil, &item{kind: kindRange, fn: 2, n: 1, grain: 1}),
		"short range":   rng[:len(rng)-1],
		"negative n":    appendItem(nil, &item{kind: kindRange, n: -1, grain: 1}),
		"zero grain":    appendItem(nil, &item{kind: kindRange, n: 1}),
		"overflow":      appendItem(nil, &item{kind: kindRange, lo: maxInt64, n: 1, grain: 1}),
		"trailing junk": append(append([]byte(nil), good...), 1),
	} {
		if _, err := decodeItems(b, 1, 1); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
}

// FuzzDecode: any bytes decode to tasks that encode back to the same
// bytes, or fail with ErrMalformed; never a panic.
func FuzzDecode(f *testing.F) {
	f.Add(appendItem(nil, &item{kind: kindFunc, fn: 1, args: []byte("x")}))
	f.Add(appendItem(nil, &item{kind: kindRange, lo: 3, n: 9, grain: 2}))
	f.Fuzz(func(t *testing.T, b []byte) {
		items, err := decodeItems(b, 2, 2)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		var again []byte
		for _, it := range items {
			again = appendItem(again, it)
		}
		if string(again) != string(b) {
			t.Fatalf("re-encoded %x, was %x", again, b)
		}
	})
}

func TestReportAndOutcome(t *testing.T) {
	for _, r := range []report{{idle: true, sent: 3, recv: 4, err: "rank 2: boom"}, {gone: true}, {}} {
		if got, err := decodeReport(appendReport(nil, r)); err != nil || got != r {
			t.Errorf("report round trip of %+v: %+v, %v", r, got, err)
		}
	}
	if _, err := decodeReport(make([]byte, 16)); !errors.Is(err, ErrMalformed) {
		t.Errorf("short report: %v", err)
	}
	o := outcome{state: stateLost, rank: 3, text: "gone"}
	if got, err := decodeOutcome(appendOutcome(nil, o)); err != nil || got != o {
		t.Errorf("outcome round trip: %+v, %v", got, err)
	}
	for _, b := range [][]byte{{1, 0, 0}, {9, 0, 0, 0, 0}, {0, 0, 0, 0, 0}} {
		if _, err := decodeOutcome(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("outcome %x: %v", b, err)
		}
	}
}

func TestInts(t *testing.T) {
	args := Ints(-1, 0, 1<<62)
	for i, want := range []int64{-1, 0, 1 << 62} {
		if got, err := Int(args, i); err != nil || got != want {
			t.Errorf("Int(%d) = %d, %v", i, got, err)
		}
	}
	for _, i := range []int{-1, 3} {
		if _, err := Int(args, i); !errors.Is(err, ErrMalformed) {
			t.Errorf("Int(%d): %v, want ErrMalformed", i, err)
		}
	}
}

// TestDeque drives the deque and a plain slice with the same operations
// and compares every result.
func TestDeque(t *testing.T) {
	var q deque
	var model []*item
	items := make([]*item, 500)
	for i := range items {
		items[i] = &item{lo: int64(i)}
	}
	next := 0
	for step := range 5000 {
		switch op := (step*7 + step/13) % 5; {
		case op < 2 && next < len(items):
			q.pushBack(items[next])
			model = append(model, items[next])
			next++
		case op == 2:
			var want *item
			if len(model) > 0 {
				want, model = model[0], model[1:]
			}
			if q.front() != want {
				t.Fatalf("step %d: front %v, want %v", step, q.front(), want)
			}
			if got := q.popFront(); got != want {
				t.Fatalf("step %d: popFront %v, want %v", step, got, want)
			}
		default:
			var want *item
			if len(model) > 0 {
				want, model = model[len(model)-1], model[:len(model)-1]
			}
			if got := q.popBack(); got != want {
				t.Fatalf("step %d: popBack %v, want %v", step, got, want)
			}
		}
		if q.len() != len(model) {
			t.Fatalf("step %d: len %d, want %d", step, q.len(), len(model))
		}
		if next == len(items) && len(model) == 0 {
			next = 0
		}
	}
}
