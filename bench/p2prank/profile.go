package p2prank

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile starts a CPU profile into path and returns what stops it
// and closes the file. pgo.sh runs the cases with it and merges the ranks'
// profiles into default.pgo, which go build uses for this program.
func startProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
