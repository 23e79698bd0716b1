// Package syncbuf is a bytes.Buffer that many goroutines may write at
// once while another reads it: where tests collect what a job's ranks
// print or what a logger writes while the code under test still runs.
//
// Usage:
//
//	var out syncbuf.Buffer
//	job := launch.Job{N: 2, Prog: prog, Stdout: &out}
//	...
//	if !strings.Contains(out.String(), want) { ... }
//
// It depends on nothing in this module, so any package's tests may use
// it.
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer behind a mutex. The zero value is empty and
// ready; all methods may be called from any goroutine.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p; it never fails.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
