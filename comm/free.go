package comm

import (
	"errors"
	"fmt"
)

// Freeing requests. Requests belong to their callers and are otherwise
// garbage collected (carved out of slabs). A loop that starts
// many of them can hand finished ones back with Free, as MPI's Wait frees
// a request, and later Isends and Irecvs of the same world reuse them:
// a steady stream of messages then allocates nothing.
//
// Contract: Free takes only finished requests (Wait returned, or Test
// reported done); the caller must not use a freed request again, since
// the world may already have given it to another operation. Wait or Test
// on a freed request that was not reused yet panics; after reuse the
// mistake cannot be detected. Shared completed sends (sentCache) are left
// alone, so freeing them is harmless.

// ErrInFlight is Free's error for a request that has not finished.
var ErrInFlight = errors.New("comm: Free of a request still in flight")

// ErrFreed is Free's error for a request already freed and not handed
// out again since.
var ErrFreed = errors.New("comm: Free of a request already freed")

// freeBatch is how many freed requests Free hands to a world at once.
const freeBatch = 64

// Free hands finished requests (Wait returned, or Test reported done)
// back to their world, whose later Isends and Irecvs reuse them, so that
// a steady stream of messages allocates nothing; nil entries are
// skipped. The caller must not use a freed request again: Wait or Test
// on one not reused yet panics, and after reuse the mistake cannot be
// detected. Freeing a completed eager send, which may be shared with
// other Isends, is harmless. Free frees every finished request and
// returns an error wrapping ErrInFlight if some were not finished (those
// stay the caller's), or ErrFreed if some were freed already (a second
// Free that the world can still detect).
func Free(reqs ...*Request) error {
	var (
		err   error
		batch [freeBatch]*Request
		n     int
		w     *World
	)
	for i, r := range reqs {
		switch {
		case r == nil || r.shared:
			continue
		case r.freed:
			err = firstOf(err, ErrFreed, i)
			continue
		case !r.finished():
			err = firstOf(err, ErrInFlight, i)
			continue
		}
		if n == len(batch) || n > 0 && r.w != w {
			w.slabs.put(batch[:n])
			n = 0
		}
		w = r.w
		r.reset()
		batch[n] = r
		n++
	}
	if n > 0 {
		w.slabs.put(batch[:n])
	}
	return err
}

// firstOf adds sentinel, naming entry i, to err unless err has it
// already: Free names the first entry of each kind of mistake.
func firstOf(err, sentinel error, i int) error {
	if errors.Is(err, sentinel) {
		return err
	}
	return errors.Join(err, fmt.Errorf("%w: entry %d", sentinel, i))
}

// reset clears r, so that it holds on to no buffer or error, and marks it
// freed. Its state is then pending, as alloc hands it out: no atomic store
// on either side (only the owner touches a freed request).
func (r *Request) reset() {
	done := r.done
	*r = Request{done: done, freed: true}
}

// checkLive panics if r was freed: its caller broke Free's contract.
func (r *Request) checkLive() {
	if r.freed {
		panic("comm: use of a Request after Free")
	}
}
