//go:build !unix

package launch

import (
	"os"
	"syscall"
)

// openOwned cannot check ownership here; the file's directory must be
// private to the user.
func openOwned(path string) (*os.File, error) { return os.Open(path) }

func sysProcAttr() *syscall.SysProcAttr { return nil }

// signalGroup can only kill: other signals do not exist here.
func signalGroup(pid int, sig os.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
