package match

import (
	"errors"
	"fmt"
)

// Wildcards a receive may use in Key.Source and Key.Tag, as MPI_ANY_SOURCE
// and MPI_ANY_TAG. An arriving message never carries them.
const AnySource, AnyTag = -1, -1

// ErrBadKey reports a key no operation accepts: an arriving message with a
// wildcard or other negative source or tag, or a receive with a source or
// tag below the wildcards.
var ErrBadKey = errors.New("match: bad key")

// Key is the matching signature of a message or a receive: communicator,
// source rank and tag. Messages have concrete keys (Source, Tag ≥ 0);
// receives may put AnySource in Source and AnyTag in Tag.
type Key struct {
	Comm   uint32
	Source int32
	Tag    int32
}

// Wild reports whether k uses AnySource or AnyTag.
func (k Key) Wild() bool { return k.Source == AnySource || k.Tag == AnyTag }

// Matches reports whether a receive posted with k accepts a message with
// the concrete key msg.
func (k Key) Matches(msg Key) bool {
	return k.Comm == msg.Comm &&
		(k.Source == AnySource || k.Source == msg.Source) &&
		(k.Tag == AnyTag || k.Tag == msg.Tag)
}

// String formats k with wildcards by name, for errors and test failures.
func (k Key) String() string {
	src, tag := fmt.Sprint(k.Source), fmt.Sprint(k.Tag)
	if k.Source == AnySource {
		src = "any"
	}
	if k.Tag == AnyTag {
		tag = "any"
	}
	return fmt.Sprintf("comm %d source %s tag %s", k.Comm, src, tag)
}

// checkArrival rejects keys no sender can produce: a message must name
// its source and tag, so a wildcard here is corrupt input, not a request.
func checkArrival(k Key) error {
	if k.Source < 0 || k.Tag < 0 {
		return fmt.Errorf("%w: message with %v: source and tag must be ≥ 0", ErrBadKey, k)
	}
	return nil
}

// checkReceive rejects receive keys that could never match anything, so
// a bad receive fails at once instead of waiting forever.
func checkReceive(k Key) error {
	if k.Source < AnySource || k.Tag < AnyTag {
		return fmt.Errorf("%w: receive with %v: source and tag must be ≥ 0 or the wildcard -1", ErrBadKey, k)
	}
	return nil
}

// hash spreads keys over shards. Tags and sources are small dense
// integers, so they are mixed (splitmix64's finaliser) before the top bits
// pick a shard.
func (k Key) hash() uint64 {
	x := uint64(uint32(k.Tag)) | uint64(uint32(k.Source))<<32
	x ^= uint64(k.Comm) * 0x9e3779b97f4a7c15
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
