package main

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestParseFlagsGoroutines(t *testing.T) {
	o, err := parseFlags([]string{"-bench", "msgrate_mt", "-g", "1,10,100000"})
	if err != nil || !reflect.DeepEqual(o.goroutines, []int{1, 10, 100000}) || o.base != 2000 {
		t.Errorf("%+v, %v", o, err)
	}
	if o, err := parseFlags([]string{"-bench", "latency_mt"}); err != nil || !reflect.DeepEqual(o.goroutines, []int{1}) || o.base != 1000 {
		t.Errorf("defaults: %+v, %v", o, err)
	}
	for _, g := range []string{"0", "-3", "ten", "1,,2", "1000001", ""} {
		if _, err := parseFlags([]string{"-bench", "latency_mt", "-g", g}); err == nil {
			t.Errorf("-g %q accepted", g)
		}
	}
}

func TestSerializedFlag(t *testing.T) {
	o, err := parseFlags([]string{"-bench", "msgrate", "-transport", "shm", "-serialized"})
	if err != nil || !o.serialized {
		t.Fatalf("%+v, %v", o, err)
	}
	o, err = parseFlags([]string{"-bench", "latency_mt", "-serialized"})
	if err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "-serialized") {
		t.Fatalf("a serialized world for latency_mt: %v", err)
	}
}

func TestStartProfile(t *testing.T) {
	path := t.TempDir() + "/cpu.0"
	stop, err := startProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("profile %v, %v", fi, err)
	}
	if _, err := startProfile(t.TempDir() + "/no/such/dir/cpu"); err == nil {
		t.Fatal("a profile in a missing directory started")
	}
	if o, err := parseFlags([]string{"-cpuprofile", "/tmp/x"}); err != nil || o.cpuprofile != "/tmp/x" {
		t.Fatalf("%+v, %v", o, err)
	}
}
