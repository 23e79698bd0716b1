package multirail

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/rail"
)

// TestNewRefusesBadRails: a nil conn, whose reader would crash the
// process, and a profile with no samples, which the split cannot predict
// with, are refused by New, naming the rail.
func TestNewRefusesBadRails(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	good := linear(t, 10*time.Microsecond, 100e6)
	if _, err := New([]net.Conn{a, nil}, []rail.Profile{good, good}, Config{}); err == nil || !strings.Contains(err.Error(), "rail 1 has no connection") {
		t.Errorf("New with a nil conn: %v", err)
	}
	if _, err := New([]net.Conn{a}, []rail.Profile{{}}, Config{}); !errors.Is(err, rail.ErrBadProfile) || !strings.Contains(err.Error(), "rail 0") {
		t.Errorf("New with the zero Profile: %v, want rail.ErrBadProfile naming rail 0", err)
	}
}
