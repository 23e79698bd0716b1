package p2prank

import (
	"context"
	"errors"
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestParseFlagsGoroutines(t *testing.T) {
	o, err := parseFlags([]string{"-bench", "msgrate_mt", "-g", "1,10,100000"}, io.Discard)
	if err != nil || !reflect.DeepEqual(o.goroutines, []int{1, 10, 100000}) || o.base != 2000 {
		t.Errorf("%+v, %v", o, err)
	}
	if o, err := parseFlags([]string{"-bench", "latency_mt"}, io.Discard); err != nil || !reflect.DeepEqual(o.goroutines, []int{1}) || o.base != 1000 {
		t.Errorf("defaults: %+v, %v", o, err)
	}
	for _, g := range []string{"0", "-3", "ten", "1,,2", "1000001", ""} {
		if _, err := parseFlags([]string{"-bench", "latency_mt", "-g", g}, io.Discard); !errors.Is(err, ErrUsage) {
			t.Errorf("-g %q: %v", g, err)
		}
	}
}

func TestSerializedFlag(t *testing.T) {
	o, err := parseFlags([]string{"-bench", "msgrate", "-transport", "shm", "-serialized"}, io.Discard)
	if err != nil || !o.serialized {
		t.Fatalf("%+v, %v", o, err)
	}
	_, err = parseFlags([]string{"-bench", "latency_mt", "-serialized"}, io.Discard)
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "-serialized") {
		t.Fatalf("a serialized world for latency_mt: %v", err)
	}
}

// TestRunBadOptions: Run refuses what it cannot run before it joins a
// world (no job is needed to see the errors), and -h is flag.ErrHelp.
func TestRunBadOptions(t *testing.T) {
	for _, args := range [][]string{
		{"-bench", "pingpong"}, {"-transport", "udp"}, {"-s", "1,x"}, {"-w", "0"}, {"-n", "-1"},
		{"-nosuchflag"}, {"latency"},
	} {
		err := Run(context.Background(), args, io.Discard, io.Discard)
		if !errors.Is(err, ErrUsage) {
			t.Errorf("%v: %v", args, err)
		}
	}
	if err := Run(context.Background(), []string{"-h"}, io.Discard, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
}

// TestHierarchyFlag: -hierarchy and -transport auto are read, and a
// transport neither tcp, shm nor auto is refused.
func TestHierarchyFlag(t *testing.T) {
	o, err := parseFlags([]string{"-bench", "coll", "-transport", "auto", "-hierarchy"}, io.Discard)
	if err != nil || !o.hierarchy || o.transport != "auto" {
		t.Fatalf("%+v, %v", o, err)
	}
	if o, err := parseFlags([]string{"-bench", "coll"}, io.Discard); err != nil || o.hierarchy {
		t.Fatalf("default: %+v, %v", o, err)
	}
	if _, err := parseFlags([]string{"-transport", "mux"}, io.Discard); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "auto") {
		t.Fatalf("-transport mux: %v", err)
	}
}

func TestProfileFlag(t *testing.T) {
	if o, err := parseFlags([]string{"-cpuprofile", "/tmp/x"}, io.Discard); err != nil || o.cpuprofile != "/tmp/x" {
		t.Fatalf("%+v, %v", o, err)
	}
}
