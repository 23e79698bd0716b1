package launch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// joinAll runs Join for the given ranks on goroutines and returns their
// books and errors, indexed by rank.
func joinAll(ctx context.Context, b Bootstrap, info Info, ranks []int) ([]Book, []error) {
	books, errs := make([]Book, info.Size), make([]error, info.Size)
	var wg sync.WaitGroup
	for _, r := range ranks {
		in := info
		in.Rank = r
		wg.Go(func() { books[r], errs[r] = b.Join(ctx, in, fmt.Sprintf("data-%d", r)) })
	}
	wg.Wait()
	return books, errs
}

func wantBooks(t *testing.T, books []Book, errs []error) {
	t.Helper()
	want := make([]string, len(books))
	for r := range want {
		want[r] = fmt.Sprintf("data-%d", r)
	}
	for r := range books {
		if errs[r] != nil || !reflect.DeepEqual(books[r].Addrs, want) {
			t.Errorf("rank %d: book %q, error %v; want %q", r, books[r].Addrs, errs[r], want)
		}
	}
}

func TestJoinRefusesStrangers(t *testing.T) {
	var logs lockedBuffer
	b := Bootstrap{Logger: slog.New(slog.NewTextHandler(&logs, nil)), Handshake: 2 * time.Second}
	info := Info{Size: 4, Launcher: Plexus, JobID: "t", Root: freeAddr(t), Secret: secret16()}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	var wg sync.WaitGroup
	books, errs := make([]Book, 4), make([]error, 4)
	wg.Go(func() { books[0], errs[0] = b.Join(ctx, info, "data-0") })
	waitListening(t, info.Root)

	garbage(t, info.Root, []byte("GET / HTTP/1.0\r\n\r\n"))
	garbage(t, info.Root, []byte{0xff, 0xff, 0xff, 0xff, 1, 2, 3})
	silent, err := net.Dial("tcp", info.Root) // says nothing at all
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	wrong := info
	wrong.Rank, wrong.Secret = 2, bytes.Repeat([]byte{7}, 16)
	wctx, wcancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, werr := b.Join(wctx, wrong, "impostor")
	wcancel()
	if werr == nil || !errors.Is(werr, context.DeadlineExceeded) {
		t.Errorf("Join with a wrong secret: %v, want a deadline error", werr)
	}

	got, gerrs := joinAll(ctx, b, info, []int{1, 2, 3})
	wg.Wait()
	books[1], books[2], books[3] = got[1], got[2], got[3]
	errs[1], errs[2], errs[3] = gerrs[1], gerrs[2], gerrs[3]
	wantBooks(t, books, errs)
	if n := strings.Count(logs.String(), "refused connection"); n < 3 {
		t.Errorf("%d refusals logged, want at least 3 (two garbage, one wrong secret):\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), errBadMAC.Error()) {
		t.Errorf("log does not name the wrong secret:\n%s", logs.String())
	}
}

func waitListening(t *testing.T, addr string) {
	t.Helper()
	for range 200 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("nothing listens on %s", addr)
}

// garbage connects, sends junk, and expects rank 0 to hang up.
func garbage(t *testing.T, addr string, junk []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write(junk)
	c.SetDeadline(time.Now().Add(5 * time.Second))
	var buf [256]byte
	for {
		if _, err := c.Read(buf[:]); err != nil {
			return
		}
	}
}

func TestJoinMissingRank(t *testing.T) {
	b := Bootstrap{Logger: slog.New(slog.NewTextHandler(&lockedBuffer{}, nil))}
	info := Info{Size: 5, Launcher: Plexus, JobID: "t", Root: freeAddr(t), Secret: secret16()}
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, errs := joinAll(ctx, b, info, []int{0, 1, 3})
	if !errors.Is(errs[0], ErrMissing) || !errors.Is(errs[0], context.DeadlineExceeded) ||
		!strings.Contains(errs[0].Error(), "ranks 2,4 of 5 never registered") {
		t.Errorf("rank 0: %v; want the missing ranks 2,4 named", errs[0])
	}
	for _, r := range []int{1, 3} {
		if errs[r] == nil {
			t.Errorf("rank %d joined a job whose rank 0 failed", r)
		}
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Join took %v after a 400ms deadline", d)
	}
}

func TestJoinRendezvousFile(t *testing.T) {
	dir := t.TempDir()
	b := Bootstrap{TempDir: dir, Logger: slog.New(slog.NewTextHandler(&lockedBuffer{}, nil))}
	info := Info{Size: 4, Launcher: MPIRun, JobID: "ompi-77@1"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	books, errs := joinAll(ctx, b, info, []int{3, 2, 1, 0}) // rank 0 last: others wait for the file
	wantBooks(t, books, errs)
	for r, book := range books {
		if len(book.Secret) != 32 || !bytes.Equal(book.Secret, books[0].Secret) {
			t.Errorf("rank %d: derived secret %x, rank 0 %x", r, book.Secret, books[0].Secret)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("rendezvous files left behind: %v", left)
	}
}

func TestJoinReplacesStaleFile(t *testing.T) {
	dir := t.TempDir()
	var logs lockedBuffer
	b := Bootstrap{TempDir: dir, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	info := Info{Size: 2, Launcher: SRun, JobID: "slurm-1.0", Root: freeAddr(t)}
	path := rendezvousPath(dir, info.JobID)
	if err := os.WriteFile(path, []byte("127.0.0.1:1\n"+strings.Repeat("00", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	books, errs := joinAll(ctx, b, info, []int{0, 1})
	wantBooks(t, books, errs)
	if !strings.Contains(logs.String(), "replacing stale rendezvous file") {
		t.Errorf("log lacks the replacement:\n%s", logs.String())
	}
}

func TestJoinRefusesUntrustedFile(t *testing.T) {
	dir := t.TempDir()
	b := Bootstrap{TempDir: dir, Logger: slog.New(slog.NewTextHandler(&lockedBuffer{}, nil))}
	info := Info{Rank: 1, Size: 2, Launcher: MPIRun, JobID: "ompi-5"}
	path := rendezvousPath(dir, info.JobID)
	if err := os.WriteFile(path, []byte("127.0.0.1:1\n"+strings.Repeat("00", 32)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o644) // whatever the umask
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, r := range []int{1, 0} {
		info.Rank = r
		if _, err := b.Join(ctx, info, "x"); !errors.Is(err, errUntrusted) {
			t.Errorf("rank %d: %v; want an untrusted-file error", r, err)
		}
	}
	os.Remove(path)
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), path); err != nil {
		t.Fatal(err)
	}
	info.Rank = 1
	if _, err := b.Join(ctx, info, "x"); !errors.Is(err, errUntrusted) {
		t.Errorf("symbolic link: %v; want an untrusted-file error", err)
	}
}

func TestJoinInputs(t *testing.T) {
	ctx := context.Background()
	book, err := Join(ctx, Info{Size: 1, LocalSize: 1, Launcher: Single}, "solo")
	if err != nil || !reflect.DeepEqual(book.Addrs, []string{"solo"}) {
		t.Errorf("single rank: %v, %v", book, err)
	}
	for _, c := range []struct {
		info Info
		addr string
	}{
		{Info{Rank: 2, Size: 2}, "a"},
		{Info{Size: 0}, "a"},
		{Info{Size: 2}, ""},
		{Info{Size: 2}, "a"}, // no root, no secret, no job id
	} {
		if _, err := Join(ctx, c.info, c.addr); err == nil {
			t.Errorf("Join(%+v, %q) succeeded", c.info, c.addr)
		}
	}
}
