package comm

import (
	"bytes"
	"log"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/internal/logtest"
	"github.com/plexus-hpc/plexus/internal/syncbuf"
	"github.com/plexus-hpc/plexus/transport/tcp"
)

// captureDefault makes slog's default logger, and with it the log
// package's, a sink for the rest of the test. The test must not run in
// parallel with others.
func captureDefault(t *testing.T) *logtest.Sink {
	t.Helper()
	old, w, flags := slog.Default(), log.Writer(), log.Flags()
	s := &logtest.Sink{}
	slog.SetDefault(s.Logger())
	t.Cleanup(func() {
		slog.SetDefault(old) // leaves log's output on s: restore it too
		log.SetOutput(w)
		log.SetFlags(flags)
	})
	return s
}

// TestLoggerGetsRefusals: a stranger's refused connection is reported to
// Config.Logger at Warn, which JoinWith passes down to the transport, and
// nothing reaches the global logger.
func TestLoggerGetsRefusals(t *testing.T) {
	global := captureDefault(t)
	var buf syncbuf.Buffer
	user := slog.New(slog.NewTextHandler(&buf, nil))
	ws := joinPairWith(t, TransportTCP, Config{Logger: user})
	nc, err := net.Dial("tcp", ws[0].t.(*tcp.Endpoint).Addr())
	if err != nil {
		t.Fatal(err)
	}
	nc.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
	defer nc.Close()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(buf.String(), "refused connection") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	got := buf.String()
	if !strings.Contains(got, "level=WARN") || !strings.Contains(got, "tcp: refused connection") || !strings.Contains(got, "rank=0") {
		t.Errorf("the user's logger got %q, want a refused connection at WARN naming rank 0", got)
	}
	if s := global.String(); s != "" {
		t.Errorf("the global logger got:\n%s", s)
	}
}

// TestLoggerSilentOnClose: two ranks that exchange small and large
// messages and close their worlds, one after the other, log nothing at
// Info or above, over each transport.
func TestLoggerSilentOnClose(t *testing.T) {
	global := captureDefault(t)
	for _, mode := range []string{TransportAuto, TransportSHM, TransportTCP} {
		t.Run(mode, func(t *testing.T) {
			user := &logtest.Sink{}
			ws := joinPairWith(t, mode, Config{Logger: user.Logger()})
			ctx := testCtx(t)
			for _, n := range []int{8, 4 << 10, 1 << 20} { // eager, bulk, rendezvous (pulled over shm)
				msg := payload(0, 7, n)
				go ws[0].Send(ctx, 1, 7, msg)
				buf := make([]byte, n)
				if _, err := ws[1].Recv(ctx, 0, 7, buf); err != nil || !bytes.Equal(buf, msg) {
					t.Fatalf("%d bytes: %v", n, err)
				}
			}
			ws[1].Close()
			time.Sleep(300 * time.Millisecond) // rank 0 notices its peer closed
			ws[0].Close()
			if l := user.Lines(slog.LevelInfo); len(l) > 0 {
				t.Errorf("a normal close logged:\n%s", strings.Join(l, "\n"))
			}
		})
	}
	if s := global.String(); s != "" {
		t.Errorf("the global logger got:\n%s", s)
	}
}
