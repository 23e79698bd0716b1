package multirail

import (
	"fmt"
	"net"
	"testing"

	"github.com/plexus-hpc/plexus/internal/rawsock"
	"github.com/plexus-hpc/plexus/internal/wait"
	"golang.org/x/sys/unix"
)

// BenchmarkPingPongFloor times the round trip of BenchmarkPingPong over
// one bare loopback connection whose ends are out of the netpoller and
// read by the spin a polling Recv uses (wait.Spinner), with no framing
// and no acknowledgement: the floor a Link's small-message path is
// judged against, in the same process layout as the Links'.
func BenchmarkPingPongFloor(b *testing.B) {
	for _, size := range []int{4, 4096} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			x, y := floorPair(b)
			go func() {
				buf := make([]byte, size)
				for floorRead(y, buf) == nil && floorWrite(y, buf) == nil {
				}
			}()
			buf := make([]byte, size)
			b.ResetTimer()
			for range b.N {
				if err := floorWrite(x, buf); err != nil {
					b.Fatal(err)
				}
				if err := floorRead(x, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// floorConn is one end of BenchmarkPingPongFloor's connection.
type floorConn struct {
	fd      int
	spinner wait.Spinner
}

// floorPair connects two floorConns over loopback; both close when b
// ends (closing x makes y's reader fail, ending its goroutine).
func floorPair(b *testing.B) (x, y *floorConn) {
	c, s := loopbackConns(b)
	fc, err1 := rawsock.Detach(c)
	fs, err2 := rawsock.Detach(s)
	if err1 != nil || err2 != nil {
		b.Skip("cannot detach a socket: ", err1, err2)
	}
	x = &floorConn{fd: fc, spinner: wait.Spinner{Endless: true}}
	y = &floorConn{fd: fs, spinner: wait.Spinner{Endless: true}}
	b.Cleanup(func() { unix.Shutdown(fc, unix.SHUT_RDWR); unix.Close(fc); unix.Close(fs) })
	return x, y
}

// floorRead fills p, spinning on non-blocking reads.
func floorRead(c *floorConn, p []byte) error {
	for len(p) > 0 {
		var k int
		var err error
		c.spinner.Spin(func(int) bool {
			k, err = unix.Read(c.fd, p)
			return err != unix.EAGAIN && err != unix.EINTR
		}, nil, nil)
		if err != nil {
			return err
		}
		if k == 0 {
			return net.ErrClosed
		}
		p = p[k:]
	}
	return nil
}

// floorWrite writes all of p (a short message fits the socket's buffer).
func floorWrite(c *floorConn, p []byte) error {
	for len(p) > 0 {
		k, err := unix.Write(c.fd, p)
		if err != nil && err != unix.EAGAIN && err != unix.EINTR {
			return err
		}
		p = p[max(k, 0):]
	}
	return nil
}
