package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sync"
)

// Each end of a competing flow runs in a process of its own, plexus rail
// flood --fd, on the connection the rank made and authenticated. In the
// rank's own process the flow shared a Go runtime, and two CPUs, with the
// impl under test: its writer or reader waited for a thread whenever the
// impl's goroutines held them, so the flow was weaker against an impl
// that kept the CPUs busy than against one that did not, and weakest of
// all against none (Open MPI runs in processes of its own). The kernel
// now shares the CPUs between the flow and the impl's processes alike
// (docs/benchmarks.md, "Rails: each half of a case under the flow").

// flowExe is the program that runs a flow's end: this one (the tests'
// TestMain runs rail flood when a test binary is started so).
var flowExe = os.Executable

// flowProc is one end of a competing flow: a net.Conn whose bytes a
// child process writes (a source, from when start is called) or reads
// and discards (a sink, from the start). Close ends the child, then
// closes the connection; it may be called any number of times, from any
// goroutine. A child whose parent dies ends too: its standard input, a
// pipe from the parent, then ends.
type flowProc struct {
	net.Conn
	cmd  *exec.Cmd
	in   io.WriteCloser
	once sync.Once
	err  error
}

// newFlowProc starts the child for c's end of a flow: a sink, or a
// source that waits for start.
func newFlowProc(c net.Conn, sink bool) (*flowProc, error) {
	fc, ok := c.(interface{ File() (*os.File, error) })
	if !ok {
		return nil, fmt.Errorf("competing flow: %T is not a socket", c)
	}
	f, err := fc.File()
	if err != nil {
		return nil, fmt.Errorf("competing flow: %w", err)
	}
	defer f.Close() // the child has its own copy
	exe, err := flowExe()
	if err != nil {
		return nil, fmt.Errorf("competing flow: this program's path: %w", err)
	}
	args := []string{"rail", "flood", "--fd", "3"}
	if sink {
		args = append(args, "--sink")
	}
	cmd := exec.Command(exe, args...)
	cmd.ExtraFiles = []*os.File{f}
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("competing flow: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("competing flow: starting %s: %w", exe, err)
	}
	return &flowProc{Conn: c, cmd: cmd, in: in}, nil
}

// start has a source begin writing.
func (p *flowProc) start() error {
	_, err := p.in.Write([]byte{1})
	return err
}

// Close ends the child at once (what it wrote and the socket still holds
// goes out, as after any close) and closes this process's end.
func (p *flowProc) Close() error {
	p.once.Do(func() {
		p.cmd.Process.Kill()
		p.in.Close()
		err := p.cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == -1 {
			err = nil // killed here
		}
		p.err = errors.Join(err, p.Conn.Close())
	})
	return p.err
}
