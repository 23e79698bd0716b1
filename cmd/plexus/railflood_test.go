package main

import (
	"net"
	"regexp"
	"strconv"
	"testing"
)

// TestRailFlood runs a flood between a listener and a sender on loopback:
// the sender reports the bytes it sent, and they are some.
func TestRailFlood(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // the sink listens there itself
	sink := make(chan int, 1)
	go func() {
		_, _, code := plexus(t, "rail", "flood", "--listen", addr, "--for", "3s")
		sink <- code
	}()
	var out string
	for range 50 { // until the sink listens
		var code int
		if out, _, code = plexus(t, "rail", "flood", "--to", addr, "--from", "127.0.0.1", "--for", "200ms"); code == exitOK {
			break
		}
	}
	m := regexp.MustCompile(`^sent (\d+) bytes to `).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the sender said %q", out)
	}
	if n, _ := strconv.Atoi(m[1]); n <= 0 {
		t.Errorf("sent %d bytes", n)
	}
	if code := <-sink; code != exitOK {
		t.Errorf("the sink exited %d", code)
	}
}

// TestRailFloodUsage: one of --listen and --to, and nothing else.
func TestRailFloodUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--listen", "127.0.0.1:1", "--to", "127.0.0.1:2"},
		{"--to", "127.0.0.1:2", "extra"},
		{"--to", "127.0.0.1:2", "--for", "-1s"},
		{"--to", "127.0.0.1:2", "--from", "not-an-ip"},
		{"--fd", "1"},
		{"--fd", "3", "--to", "127.0.0.1:2"},
		{"--fd", "3", "--for", "1s"},
		{"--to", "127.0.0.1:2", "--sink"},
	} {
		if _, _, code := plexus(t, append([]string{"rail", "flood"}, args...)...); code != exitUsage {
			t.Errorf("rail flood %q: exit %d, want %d", args, code, exitUsage)
		}
	}
}
