// Package cpuprof writes a CPU profile of part of a program's run, for the
// -cpuprofile flags of the rank programs and commands that have one.
package cpuprof

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// Start starts a CPU profile into a new file at path and returns what
// stops it and closes the file. Only one profile may run at a time in a
// process (runtime/pprof's rule).
func Start(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
