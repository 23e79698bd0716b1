package kv

import (
	"errors"
	"strings"
	"testing"
	"time"
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
