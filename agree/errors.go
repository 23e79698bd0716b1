package agree

import "errors"

// Errors returned by the package; recognise them with errors.Is.
var (
	// ErrConfig reports a Config that cannot run: a replica id outside
	// the group, a group of no replicas, ticks that are not positive.
	ErrConfig = errors.New("agree: bad config")
	// ErrMessage reports a message that no replica of the group could have
	// sent: an unknown type, a sender or receiver outside the group, or
	// bytes that do not decode.
	ErrMessage = errors.New("agree: bad message")
	// ErrEmpty reports an empty proposal: the empty value is reserved for
	// the no-op entries that fill slots a failed leader left unused.
	ErrEmpty = errors.New("agree: empty proposal")
	// ErrCompact reports a Compact at a slot the replica has not handed
	// out, or not after its last snapshot.
	ErrCompact = errors.New("agree: bad compaction point")
)
