//go:build unix

package launch

import (
	"net"
	"syscall"
	"testing"
)

func TestRootFDDetected(t *testing.T) {
	env := map[string]string{"PLEXUS_RANK": "0", "PLEXUS_SIZE": "2", "PLEXUS_ROOT": "127.0.0.1:1", "PLEXUS_ROOT_FD": "3"}
	in, err := Detect(func(k string) string { return env[k] })
	if err != nil || in.RootFD != 3 {
		t.Fatalf("rank 0: RootFD %d, %v", in.RootFD, err)
	}
	env["PLEXUS_RANK"] = "1"
	if in, err = Detect(func(k string) string { return env[k] }); err != nil || in.RootFD != 0 {
		t.Fatalf("rank 1 must not use an inherited listener: RootFD %d, %v", in.RootFD, err)
	}
}

// The port chosen for a local rank 0 stays taken until rank 0 has it, so
// no other process can bind it in between.
func TestRootPortHeldUntilRelease(t *testing.T) {
	p, err := place(2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ln, err := net.Listen("tcp", p.root); err == nil {
		ln.Close()
		t.Fatalf("%s could be bound while the launcher holds it", p.root)
	}
	s := &session{p: p}
	f := s.rootFile(0)
	if f == nil || s.rootFile(1) != nil {
		t.Fatal("rank 0 gets the listener's file, and only rank 0")
	}
	// A bare descriptor of our own, as the child's fd 3 is: inheritedListener
	// closes it, so no *os.File may own it too (its finalizer would close
	// the number again later, by then perhaps another test's pipe).
	g, err := p.rootLn.File()
	if err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Dup(int(g.Fd()))
	g.Close()
	if err != nil {
		t.Fatal(err)
	}
	in := Info{RootFD: fd}
	ln, ok, err := inheritedListener(in)
	if !ok || err != nil {
		t.Fatalf("inheriting: %v %v", ok, err)
	}
	defer ln.Close()
	if ln.Addr().String() != p.root {
		t.Fatalf("inherited listener on %s, want %s", ln.Addr(), p.root)
	}
	s.releaseRoot()
	c, err := net.Dial("tcp", p.root) // the inherited copy still accepts
	if err != nil {
		t.Fatalf("dial after release: %v", err)
	}
	c.Close()
}
