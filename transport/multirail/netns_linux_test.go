package multirail

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/plexus-hpc/plexus/rail"
)

// Real rails: two network namespaces of this test's own (not the
// cluster's, whose hosts another package's tests may be using), joined by
// veth pairs shaped with tc tbf, each on its own subnet. The sockets are
// made on threads that entered a namespace, and keep it: so one process
// holds both ends, and the bytes still cross the shaped links.

// railNet is two namespaces joined by rails; addr(side, k) is side's
// address on rail k.
type railNet struct{ a, b string }

func (n railNet) addr(side, k int) string { return fmt.Sprintf("10.253.%d.%d", k+1, side+1) }

func ipCmd(args ...string) error {
	if b, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, b)
	}
	return nil
}

// makeRails makes the namespaces and one rail per rate, or skips.
func makeRails(t testing.TB, rates ...string) railNet {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no namespaces")
	}
	if os.Geteuid() != 0 {
		t.Skip("real rails need root (network namespaces)")
	}
	if _, err := exec.LookPath("tc"); err != nil {
		t.Skip("real rails need tc (iproute2)")
	}
	n := railNet{fmt.Sprintf("plexus-mr%da", os.Getpid()), fmt.Sprintf("plexus-mr%db", os.Getpid())}
	t.Cleanup(func() { ipCmd("netns", "delete", n.a); ipCmd("netns", "delete", n.b) })
	if err := ipCmd("netns", "add", n.a); err != nil {
		t.Skipf("cannot make network namespaces here: %v", err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(ipCmd("netns", "add", n.b))
	for k, rate := range rates {
		dev := fmt.Sprintf("rail%d", k+1)
		must(ipCmd("-n", n.a, "link", "add", dev, "type", "veth", "peer", "name", dev, "netns", n.b))
		for side, ns := range []string{n.a, n.b} {
			must(ipCmd("-n", ns, "addr", "add", n.addr(side, k)+"/24", "dev", dev))
			must(ipCmd("-n", ns, "link", "set", dev, "up"))
			if b, err := exec.Command("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", dev, "root", "tbf",
				"rate", rate, "burst", "256kb", "latency", "50ms").CombinedOutput(); err != nil {
				t.Fatalf("tc: %v: %s", err, b)
			}
		}
	}
	return n
}

// inNetns runs f on a thread of its own in namespace ns; the thread is
// never handed back to the runtime (it exits with the goroutine).
func inNetns(ns string, f func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		fd, err := unix.Open("/run/netns/"+ns, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			errc <- err
			return
		}
		defer unix.Close(fd)
		if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
			errc <- err
			return
		}
		errc <- f()
	}()
	return <-errc
}

// connect makes one authenticated connection per rail, a's end bound to
// a's address, and returns both ends.
func connect(t testing.TB, n railNet, rails int, secret []byte) (ca, cb []net.Conn) {
	t.Helper()
	lns := make([]net.Listener, rails)
	if err := inNetns(n.b, func() error {
		for k := range lns {
			var err error
			if lns[k], err = net.Listen("tcp", n.addr(1, k)+":0"); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	cb = make([]net.Conn, rails)
	errs := make(chan error, rails)
	for k, ln := range lns {
		go func() {
			defer ln.Close()
			c, err := ln.Accept()
			if err == nil {
				err = Handshake(c, secret, false, 5*time.Second)
			}
			cb[k] = c
			errs <- err
		}()
	}
	ca = make([]net.Conn, rails)
	if err := inNetns(n.a, func() error {
		for k := range ca {
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(n.addr(0, k))}, Timeout: 5 * time.Second}
			c, err := d.Dial("tcp", lns[k].Addr().String())
			if err != nil {
				return err
			}
			ca[k] = c
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for k := range ca {
		if err := Handshake(ca[k], secret, true, 5*time.Second); err != nil {
			t.Fatal(err)
		}
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	return ca, cb
}

// sampleRails samples each rail from a's end at powers of four up to
// maxSize bytes, streams of streamBytes.
func sampleRails(t testing.TB, ca, cb []net.Conn, maxSize, streamBytes int) []rail.Profile {
	t.Helper()
	var ps []rail.Profile
	for k := range ca {
		echoed := make(chan error, 1)
		go func() { echoed <- Echo(cb[k]) }()
		var sizes []int
		for n := 4; n <= maxSize; n *= 4 {
			sizes = append(sizes, n)
		}
		s, err := Sample(context.Background(), ca[k], SampleConfig{Sizes: sizes, StreamBytes: streamBytes})
		if err != nil {
			t.Fatal(err)
		}
		// Echo must have read the end of the sampling before a Link takes
		// the connection: New closes the net.Conn, and an Echo still
		// reading would leave the end's bytes for the Link to refuse.
		if err := <-echoed; err != nil {
			t.Fatal(err)
		}
		p, err := rail.NewProfile(fmt.Sprintf("rail%d", k+1), s)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

// TestRealRails sends messages over two shaped rails between namespaces,
// then takes the faster rail's link down in the middle of a message: the
// transfer completes on the other, intact, and the failure is reported.
func TestRealRails(t *testing.T) {
	n := makeRails(t, "200mbit", "100mbit")
	secret := []byte("rails")
	ca, cb := connect(t, n, 2, secret)
	ps := sampleRails(t, ca, cb, 1<<20, 1<<20)
	if ps[0].Bandwidth(1<<20) < ps[1].Bandwidth(1<<20) {
		t.Logf("sampled rail 1 slower than rail 2: %v vs %v B/s (a busy machine)", ps[0].Bandwidth(1<<20), ps[1].Bandwidth(1<<20))
	}
	down := make(chan int, 2)
	cfg := Config{AckTimeout: 300 * time.Millisecond, RailDown: func(i int, err error) { down <- i }}
	a, err := New(ca, ps, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := New(cb, ps, Config{AckTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	exchange(t, a, b, randomMessages(23, 8, 1<<20))
	if st := a.Stats(); st.Bytes[0] == 0 || st.Bytes[1] == 0 {
		t.Errorf("a rail carried nothing: %+v", st)
	}
	go func() {
		time.Sleep(20 * time.Millisecond)
		ipCmd("-n", n.a, "link", "set", "rail1", "down")
	}()
	exchange(t, a, b, randomMessages(29, 6, 2<<20))
	select {
	case i := <-down:
		if i != 0 {
			t.Errorf("rail %d reported down, want 0", i)
		}
	case <-time.After(5 * time.Second):
		t.Errorf("rail 1 went down, and nothing was reported: %+v", a.Stats())
	}
}
