//go:build unix

package bench

import (
	"os/exec"
	"syscall"
)

// inGroup starts cmd in a process group of its own and makes its
// cancellation SIGTERM that group: a remote shell (the namespace agent)
// may fork mpirun rather than exec it, and mpirun, which ends its ranks
// on every host on SIGTERM, must get the signal; SIGKILL would leave them
// running.
func inGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
}
