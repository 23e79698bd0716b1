package am

import (
	"testing"
	"time"
)

func TestDecide(t *testing.T) {
	th := thresholds{bytes: 4096, age: time.Millisecond}
	for _, tc := range []struct {
		name string
		b    buffered
		want cause
		ok   bool
	}{
		{"empty", buffered{}, 0, false},
		{"empty idle old", buffered{age: time.Hour, idle: true}, 0, false},
		{"small young busy", buffered{bytes: 100, age: time.Microsecond}, 0, false},
		{"just under size", buffered{bytes: 4095}, 0, false},
		{"at size", buffered{bytes: 4096}, causeSize, true},
		{"over size and old", buffered{bytes: 5000, age: time.Hour, idle: true}, causeSize, true},
		{"at age", buffered{bytes: 1, age: time.Millisecond}, causeAge, true},
		{"old and idle", buffered{bytes: 1, age: 2 * time.Millisecond, idle: true}, causeAge, true},
		{"young idle", buffered{bytes: 1, age: time.Microsecond, idle: true}, causeIdle, true},
		{"all callers blocked", buffered{bytes: 64, messages: 2, waiting: 2}, causeIdle, true},
		{"one caller of two blocked", buffered{bytes: 64, messages: 2, waiting: 1}, 0, false},
		{"blocked callers and a post", buffered{bytes: 96, messages: 3, waiting: 2}, 0, false},
		{"blocked but empty", buffered{messages: 0, waiting: 0}, 0, false},
		{"blocked and full", buffered{bytes: 4096, messages: 2, waiting: 2}, causeSize, true},
		{"blocked and old", buffered{bytes: 64, age: time.Hour, messages: 1, waiting: 1}, causeAge, true},
	} {
		got, ok := decide(tc.b, th)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: decide(%+v) = %v, %v; want %v, %v", tc.name, tc.b, got, ok, tc.want, tc.ok)
		}
	}
}

// TestDecideDirect: a threshold of one byte sends every message alone,
// which is how Config gives the direct (unaggregated) mode.
func TestDecideDirect(t *testing.T) {
	if c, ok := decide(buffered{bytes: maxHeader}, thresholds{bytes: 1, age: time.Hour}); !ok || c != causeSize {
		t.Fatalf("one message with FlushBytes 1: %v, %v; want size flush", c, ok)
	}
}

func TestConfigValidate(t *testing.T) {
	if err := (Config{}).Validate(); err != nil {
		t.Errorf("zero Config: %v", err)
	}
	for _, c := range []Config{
		{FlushBytes: -1}, {FlushBytes: 1 << 25}, {FlushAge: -time.Second},
		{MaxArgs: -1}, {MaxArgs: 1 << 25}, {Tag: -1}, {Tag: 1 << 31},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}
