//go:build unix

package launch

import (
	"fmt"
	"os"
	"syscall"
)

// openOwned opens a rendezvous file only if it is a regular file of this
// user that nobody else may read or write; it does not follow a symbolic
// link, which another user could have planted.
func openOwned(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		if isLoop(err) {
			return nil, fmt.Errorf("%w: %s is a symbolic link", errUntrusted, path)
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.Mode().IsRegular():
		err = fmt.Errorf("%w: %s is not a regular file", errUntrusted, path)
	case !ok || int(st.Uid) != os.Getuid():
		err = fmt.Errorf("%w: %s belongs to another user", errUntrusted, path)
	case fi.Mode().Perm()&0o077 != 0:
		err = fmt.Errorf("%w: %s has mode %v, want 0600", errUntrusted, path, fi.Mode().Perm())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func isLoop(err error) bool {
	pe, ok := err.(*os.PathError)
	return ok && pe.Err == syscall.ELOOP
}

// sysProcAttr puts a rank in its own process group, so that a signal to
// the group reaches the programs it started too, and a terminal's Ctrl-C
// reaches the rank once, through plexus run, not twice.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// signalGroup sends sig to the process group led by pid.
func signalGroup(pid int, sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return fmt.Errorf("launch: cannot send %v", sig)
	}
	return syscall.Kill(-pid, s)
}
