package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/plexus-hpc/plexus/transport/multirail"
)

// The mptcp impl: one Linux MPTCP connection, opened on the fastest rail.
// The kernel's path manager adds subflows over the other rails when the
// hosts say so ("ip mptcp endpoint add ADDR dev RAIL signal" on the
// listening host, "ip mptcp limits" on both: testdata/cluster/rails.sh),
// and its scheduler spreads the stream over them.

// mptcpMissing says why this host cannot run the mptcp impl, or "".
func mptcpMissing() string {
	b, err := os.ReadFile("/proc/sys/net/mptcp/enabled")
	switch {
	case err != nil:
		return "not run: this kernel has no MPTCP (no /proc/sys/net/mptcp/enabled)"
	case strings.TrimSpace(string(b)) != "1":
		return "not run: MPTCP is off here (sysctl net.mptcp.enabled = " + strings.TrimSpace(string(b)) + ")"
	}
	return ""
}

// mptcpAddr is rank 1's answer to an mptcp case: where it listens, or why
// it cannot.
type mptcpAddr struct {
	Addr string `json:"addr"`
	Err  string `json:"err,omitempty"`
}

// mptcpCase is rank 0's side of an mptcp case.
func (d *railDriver) mptcpCase(ctx context.Context, cs railCase) (time.Duration, func(), string, error) {
	var a mptcpAddr
	if err := railRecv(ctx, d.s.w, 1, tagRailAddr, &a); err != nil {
		return 0, nil, "", err
	}
	if a.Err != "" {
		return 0, nil, "", errors.New(a.Err)
	}
	dl := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(d.s.rails[cs.Fast].Local)}, Timeout: 5 * time.Second}
	dl.SetMultipathTCP(true)
	c, err := dl.DialContext(ctx, "tcp", a.Addr)
	if err != nil {
		return 0, nil, "", err
	}
	if err := multirail.Handshake(c, d.s.secret, true, 5*time.Second); err != nil {
		c.Close()
		return 0, nil, "", err
	}
	comps, err := dialCompetitors(ctx, d.s, cs)
	if err != nil {
		c.Close()
		return 0, nil, "", err
	}
	closer := func() { c.Close(); closeAll(comps) }
	t, err := timeStream(ctx, c, cs, comps)
	return t, closer, mptcpNote(c), err
}

// mptcpNote says whether c is MPTCP and over how many subflows.
func mptcpNote(c net.Conn) string {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return ""
	}
	if mp, err := tc.MultipathTCP(); err != nil || !mp {
		return "fell back to plain TCP: the peer or the path refused MPTCP"
	}
	if n, ok := mptcpSubflows(tc); ok {
		return fmt.Sprintf("subflows: %d", n)
	}
	return ""
}

// timeStream runs the case's transfers over c: a ping-pong, or a stream
// that the peer acknowledges with a byte after the warm-up and at the end.
// When ctx ends, c's reads and writes fail (abortConn), so that a
// connection that stalls (an MPTCP one once did, for good) fails the case
// rather than hang the benchmark.
func timeStream(ctx context.Context, c net.Conn, cs railCase, comps []net.Conn) (time.Duration, error) {
	defer context.AfterFunc(ctx, func() { abortConn(c) })()
	buf := make([]byte, cs.Size)
	if cs.pingPong() {
		if err := pingConn(c, buf, cs.Warm); err != nil {
			return 0, err
		}
		t0 := time.Now()
		err := pingConn(c, buf, cs.Count)
		return time.Since(t0), err
	}
	if err := sendConn(c, buf, cs.Warm, nil); err != nil {
		return 0, err
	}
	k, err := competeIf(comps)
	if err != nil {
		return 0, err
	}
	defer k.stop()
	t0 := time.Now()
	err = sendConn(c, buf, cs.Count, k.stop)
	return time.Since(t0), err
}

func pingConn(c net.Conn, buf []byte, n int) error {
	for range n {
		if _, err := c.Write(buf); err != nil {
			return err
		}
		if _, err := io.ReadFull(c, buf); err != nil {
			return err
		}
	}
	return nil
}

// sendConn writes n messages of buf and waits for the peer's byte. half,
// if not nil, is called once halfOf(n) messages are written: the socket's
// buffer, all that may not be through yet, is small against half a case.
func sendConn(c net.Conn, buf []byte, n int, half func()) error {
	if n == 0 {
		return nil
	}
	h := halfway{n: n}
	for range n {
		if _, err := c.Write(buf); err != nil {
			return err
		}
		if h.step() && half != nil {
			go half() // it waits for the flow to close
		}
	}
	_, err := io.ReadFull(c, make([]byte, 1))
	return err
}

// serveMPTCP is rank 1's side of an mptcp case.
func serveMPTCP(ctx context.Context, s *railSession, cs railCase, got *int64) (func(), error) {
	// The listener takes every address: the subflows that join the
	// connection come to this host's other rails' addresses, at its port.
	host, _, _ := net.SplitHostPort(s.rails[cs.Fast].Remote)
	var lc net.ListenConfig
	lc.SetMultipathTCP(true)
	ln, err := lc.Listen(ctx, "tcp", ":0")
	if err != nil {
		railSend(ctx, s.w, 0, tagRailAddr, mptcpAddr{Err: err.Error()})
		return nil, err
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	if err := railSend(ctx, s.w, 0, tagRailAddr, mptcpAddr{Addr: net.JoinHostPort(host, port)}); err != nil {
		return nil, err
	}
	c, err := s.accept(ctx, ln)
	if err != nil {
		return nil, err
	}
	return serveStream(ctx, s, cs, c, got)
}

// recvStream is the peer of timeStream.
func recvStream(c net.Conn, cs railCase, got *int64) error {
	buf := make([]byte, cs.Size)
	if cs.pingPong() {
		for range cs.Warm + cs.Count {
			n, err := io.ReadFull(c, buf)
			*got += int64(n)
			if err != nil {
				return err
			}
			if _, err := c.Write(buf); err != nil {
				return err
			}
		}
		return nil
	}
	for _, n := range []int{cs.Warm, cs.Count} {
		if n == 0 {
			continue
		}
		k, err := io.CopyN(io.Discard, c, int64(n)*int64(cs.Size))
		*got += k
		if err == nil {
			_, err = c.Write([]byte{1})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// abortConn makes c's reads and writes in progress and to come fail,
// without closing it (its owner does, once they have returned): a
// shutdown where c has one (tcppoll's spinConn has no deadlines), else
// a deadline in the past.
func abortConn(c net.Conn) {
	if s, ok := c.(interface{ Shutdown() error }); ok {
		s.Shutdown()
		return
	}
	c.SetDeadline(time.Unix(1, 0))
}
