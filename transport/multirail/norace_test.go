//go:build !race

package multirail

const raceEnabled = false
