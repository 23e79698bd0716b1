package main

import "math"

// atLeast is a usage error naming flag unless v >= lo.
func atLeast(flag string, v, lo int64) error {
	return inRange(flag, v, lo, math.MaxInt64)
}

// inRange is a usage error naming flag and the values it takes unless
// lo <= v <= hi.
func inRange(flag string, v, lo, hi int64) error {
	switch {
	case v >= lo && v <= hi:
		return nil
	case hi == math.MaxInt64:
		return usagef("%s %d: want %d or more", flag, v, lo)
	}
	return usagef("%s %d: want %d to %d", flag, v, lo, hi)
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
