package launch

import (
	"fmt"
	"net"
	"os"
)

// Rank 0's bootstrap listener is opened by plexus run and inherited by the
// rank (as file descriptor PLEXUS_ROOT_FD), so the port cannot be taken by
// another process between choosing it and listening on it.

// rootFile returns the listener's file for rank r if r is rank 0 on this
// host, else nil. Only the session's goroutine calls it.
func (s *session) rootFile(r int) *os.File {
	if r != 0 || s.p.rootLn == nil {
		return nil
	}
	f, err := s.p.rootLn.File()
	if err != nil {
		return nil // rank 0 will listen on the address itself
	}
	s.rootFiles = append(s.rootFiles, f)
	return f
}

// releaseRoot closes the launcher's copies of the listener once rank 0 is
// started (or failed to start).
func (s *session) releaseRoot() {
	for _, f := range s.rootFiles {
		f.Close()
	}
	s.rootFiles = nil
	if s.p.rootLn != nil {
		s.p.rootLn.Close()
		s.p.rootLn = nil
	}
}

// inheritedListener returns the bootstrap listener rank 0 inherited, if
// Info.RootFD names one.
func inheritedListener(info Info) (net.Listener, bool, error) {
	if info.RootFD <= 0 {
		return nil, false, nil
	}
	f := os.NewFile(uintptr(info.RootFD), "plexus-root")
	if f == nil {
		return nil, false, fmt.Errorf("launch: PLEXUS_ROOT_FD=%d is not an open file", info.RootFD)
	}
	defer f.Close()
	ln, err := net.FileListener(f)
	if err != nil {
		return nil, false, fmt.Errorf("launch: PLEXUS_ROOT_FD=%d: %w", info.RootFD, err)
	}
	return ln, true, nil
}
