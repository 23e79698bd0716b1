package launch

import (
	"bytes"
	"io"
	"strconv"
	"sync"
)

// maxLine is the longest line kept whole; a longer one is passed on in
// pieces of this size, each with the prefix, so a rank that never writes
// a newline cannot make plexus run hold all its output.
const maxLine = 64 << 10

// lineWriter prefixes every line a rank writes with "[rank] " and passes
// it on with one Write while holding mu, which all of a job's lineWriters
// share: lines of different ranks and streams never mix within a line.
// Write is called by one goroutine (os/exec's copier); Close after it is
// done.
type lineWriter struct {
	mu     *sync.Mutex
	w      io.Writer
	prefix []byte
	buf    []byte
}

func newLineWriter(mu *sync.Mutex, w io.Writer, rank int) *lineWriter {
	return &lineWriter{mu: mu, w: w, prefix: []byte("[" + strconv.Itoa(rank) + "] ")}
}

// Write never fails: an error on plexus run's own output must not kill
// the rank, so it is dropped.
func (l *lineWriter) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 && len(l.buf) < maxLine {
			break
		}
		if i < 0 || i >= maxLine {
			i = maxLine - 1
		}
		l.emit(l.buf[:i+1])
		l.buf = l.buf[i+1:]
	}
	// Start over at the front once the buffer is drained, so it does not
	// creep through memory.
	if len(l.buf) == 0 {
		l.buf = l.buf[:0:0]
	}
	return len(p), nil
}

// Close passes on a last line that has no newline, adding one.
func (l *lineWriter) Close() error {
	if len(l.buf) > 0 {
		l.emit(append(l.buf, '\n'))
		l.buf = nil
	}
	return nil
}

func (l *lineWriter) emit(line []byte) {
	if line[len(line)-1] != '\n' {
		line = append(line[:len(line):len(line)], '\n')
	}
	out := append(append(make([]byte, 0, len(l.prefix)+len(line)), l.prefix...), line...)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(out)
}
