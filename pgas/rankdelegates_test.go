package pgas

import (
	"context"
	"fmt"
	"sync"
)

const rankGoroutines = 4

// delegates: every rank's goroutines increment counters homed on every
// rank with each incrementing delegate in turn, and the sum is exact;
// then every rank writes its slots, spread over every rank, with Write
// and WriteAsync, and reads all ranks' slots with Read and ReadAsync.
func (r *rank) delegates(ctx context.Context) error {
	size, me := r.w.Size(), r.w.Rank()
	counters, err := Alloc[int64](ctx, r.h, 8*size) // counter k is element 8k, on rank k
	if err != nil {
		return err
	}
	ops := max(r.n/4, incrKinds)
	if err := r.increments(ctx, counters, ops); err != nil {
		return err
	}
	if err := r.h.Quiet(ctx); err != nil { // this rank's Adds are applied
		return err
	}
	if err := r.c.Barrier(ctx); err != nil { // and every rank's
		return err
	}
	sum, err := sumAsync(ctx, counters, size)
	if err != nil {
		return err
	}
	if want := int64(size * rankGoroutines * ops); sum != want {
		return fmt.Errorf("counters sum to %d; want %d", sum, want)
	}
	slots, err := r.slots(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("rank %d: every delegate exact: counters sum %d, %d slots\n", me, sum, slots)
	return nil
}

// increments runs ops increments on each of rankGoroutines goroutines.
func (r *rank) increments(ctx context.Context, counters Array[int64], ops int) error {
	errs := make(chan error, rankGoroutines)
	var wg sync.WaitGroup
	for g := range rankGoroutines {
		wg.Go(func() {
			for i := range ops {
				p := counters.At(8 * ((g + i + r.w.Rank()) % r.w.Size()))
				if err := r.incr(ctx, p, i%incrKinds); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

const incrKinds = 6

// incr adds 1 to p's element with delegate kind k.
func (r *rank) incr(ctx context.Context, p Ptr[int64], k int) error {
	var err error
	switch k {
	case 0:
		_, err = p.FetchAndAdd(ctx, 1)
	case 1:
		_, err = p.FetchAndAddAsync(ctx, 1).Wait(ctx)
	case 2:
		err = p.Add(ctx, 1)
	case 3:
		err = casLoop(ctx, p.Read, func(v int64) (bool, error) { return p.CompareAndSwap(ctx, v, v+1) })
	case 4:
		read := func(ctx context.Context) (int64, error) { return p.ReadAsync(ctx).Wait(ctx) }
		err = casLoop(ctx, read, func(v int64) (bool, error) { return p.CompareAndSwapAsync(ctx, v, v+1).Wait(ctx) })
	case 5:
		_, err = p.Call(ctx, r.inc, nil)
	}
	return err
}

// casLoop reads v and swaps in v+1 until a swap succeeds.
func casLoop(ctx context.Context, read func(context.Context) (int64, error), swap func(int64) (bool, error)) error {
	for {
		v, err := read(ctx)
		if err != nil {
			return err
		}
		if ok, err := swap(v); err != nil || ok {
			return err
		}
	}
}

// sumAsync reads the counters with every ReadAsync in flight at once.
func sumAsync(ctx context.Context, counters Array[int64], size int) (int64, error) {
	fs := make([]*Future[int64], size)
	for k := range size {
		fs[k] = counters.At(8 * k).ReadAsync(ctx)
	}
	var sum int64
	for _, f := range fs {
		v, err := f.Wait(ctx)
		if err != nil {
			return 0, err
		}
		sum += v
	}
	return sum, nil
}

// slots writes this rank's slots and checks every rank's, returning how
// many it checked.
func (r *rank) slots(ctx context.Context) (int, error) {
	size, me := r.w.Size(), r.w.Rank()
	per := 16 * size // two blocks on each rank
	slots, err := Alloc[int64](ctx, r.h, per*size)
	if err != nil {
		return 0, err
	}
	val := func(i int) int64 { return int64(1_000_003 * (i + 1)) }
	if err := writeSlots(ctx, slots, me*per, (me+1)*per, val); err != nil {
		return 0, err
	}
	if err := r.c.Barrier(ctx); err != nil {
		return 0, err
	}
	return slots.Len(), readSlots(ctx, slots, val)
}

// writeSlots writes [lo, hi): Write for even indices, WriteAsync for
// odd ones, all in flight before the first Wait.
func writeSlots(ctx context.Context, a Array[int64], lo, hi int, val func(int) int64) error {
	var fs []*Future[struct{}]
	for i := lo; i < hi; i++ {
		if i%2 == 0 {
			if err := a.At(i).Write(ctx, val(i)); err != nil {
				return err
			}
			continue
		}
		fs = append(fs, a.At(i).WriteAsync(ctx, val(i)))
	}
	for _, f := range fs {
		if _, err := f.Wait(ctx); err != nil {
			return err
		}
	}
	return nil
}

// readSlots checks every slot: Read for even indices, ReadAsync for odd.
func readSlots(ctx context.Context, a Array[int64], val func(int) int64) error {
	fs := make(map[int]*Future[int64])
	for i := range a.Len() {
		if i%2 == 1 {
			fs[i] = a.At(i).ReadAsync(ctx)
			continue
		}
		if v, err := a.At(i).Read(ctx); err != nil || v != val(i) {
			return fmt.Errorf("Read of slot %d = %d, %v; want %d", i, v, err, val(i))
		}
	}
	for i, f := range fs {
		if v, err := f.Wait(ctx); err != nil || v != val(i) {
			return fmt.Errorf("ReadAsync of slot %d = %d, %v; want %d", i, v, err, val(i))
		}
	}
	return nil
}
