package multirail

import (
	"errors"
	"net"
	"slices"
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

// TestNewKeepsItsOwnProfiles: the Link predicts with each profile as
// rail.NewProfile makes it, whatever the order of the caller's samples,
// and a change the caller makes to its samples afterwards changes
// nothing.
func TestNewKeepsItsOwnProfiles(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	want := linear(t, 10*time.Microsecond, 100e6)
	mine := rail.Profile{Name: want.Name, Samples: append([]rail.Sample(nil), want.Samples...)}
	slices.Reverse(mine.Samples)
	l, err := New([]net.Conn{a}, []rail.Profile{mine}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range mine.Samples {
		mine.Samples[i].Time = time.Nanosecond
	}
	l.mu.Lock()
	got := l.snapshot()[0].Profile
	l.mu.Unlock()
	for _, n := range []int{1, 1000, 100 << 10, 16 << 20} {
		if g, w := got.Predict(n), want.Predict(n); g != w {
			t.Errorf("Link predicts %d bytes in %v, want %v", n, g, w)
		}
	}
}
