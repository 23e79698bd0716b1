//go:build !linux

package launch

import (
	"errors"
	"os/exec"
	"runtime"
)

// usableCores has nothing to report here: ranks are not bound on this
// system, and BindCore fails.
func usableCores() ([][]int, error) {
	return nil, errors.New("launch: binding ranks to cores is implemented on Linux only, not " + runtime.GOOS)
}

func startBound(cmd *exec.Cmd, cpus []int) error { return cmd.Start() }
