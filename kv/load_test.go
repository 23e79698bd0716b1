package kv

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/internal/jobtest"
)

// TestLoadValidate: each bad load configuration is refused with an error
// that names the field at fault, before any request is sent.
func TestLoadValidate(t *testing.T) {
	good := LoadConfig{Clients: 1, Ops: 10, GetPercent: 80, Keys: 100, KeySize: 8, ValueSize: 16}
	if err := good.Validate(); err != nil {
		t.Fatalf("the paper's load: %v", err)
	}
	cases := []struct {
		name string
		edit func(*LoadConfig)
		want string
	}{
		{"clients", func(c *LoadConfig) { c.Clients = 0 }, "0 clients"},
		{"duration", func(c *LoadConfig) { c.Duration = -time.Second }, "duration -1s"},
		{"ops", func(c *LoadConfig) { c.Ops = -1 }, "-1 requests"},
		{"gets", func(c *LoadConfig) { c.GetPercent = 101 }, "101% Gets"},
		{"keys", func(c *LoadConfig) { c.Keys = 0 }, "0 keys"},
		{"key size", func(c *LoadConfig) { c.KeySize = 7 }, "keys of 7 bytes"},
		{"value size", func(c *LoadConfig) { c.ValueSize = 2 }, "values of 2 bytes"},
		{"too large", func(c *LoadConfig) { c.ValueSize = 2_000_000 }, "at most"},
	}
	for _, tc := range cases {
		cfg := good
		tc.edit(&cfg)
		err := cfg.Validate()
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want ErrConfig saying %q", tc.name, err, tc.want)
		}
	}
}

// TestNewClientValidates: a preferred replica outside the replicas, or a
// negative attempt or timeout, is refused when the client is made, not
// found out by a request that fails at once.
func TestNewClientValidates(t *testing.T) {
	_, worlds := jobtest.TwinWorlds(t, 4)
	for _, cfg := range []ClientConfig{
		{Replicas: 3, Prefer: 3},
		{Replicas: 3, Prefer: -1},
		{Replicas: 3, Timeout: -time.Second},
		{Replicas: 3, Attempt: -time.Nanosecond},
	} {
		if _, err := NewClient(worlds[3], cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("NewClient(%+v): %v, want ErrConfig", cfg, err)
		}
	}
	if _, err := NewClient(worlds[3], ClientConfig{Replicas: 3, Prefer: 2}); err != nil {
		t.Errorf("NewClient preferring replica 2 of 3: %v", err)
	}
}

// TestRequestAppendChecks: the exported encoder refuses what no replica
// would take: an unknown op, or a key and value past MaxKeyValue.
func TestRequestAppendChecks(t *testing.T) {
	for _, r := range []Request{{Op: 99}, {Op: OpSet, Key: make([]byte, 8), Value: make([]byte, MaxKeyValue)}} {
		if _, err := r.AppendBinary(nil); !errors.Is(err, ErrBadMessage) {
			t.Errorf("AppendBinary(op %d, %d-byte value): %v, want ErrBadMessage", r.Op, len(r.Value), err)
		}
	}
}
