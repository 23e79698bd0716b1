package rail

import "errors"

// ErrBadProfile reports samples that cannot make a profile.
var ErrBadProfile = errors.New("rail: bad profile")
