package cpuprof

import (
	"os"
	"testing"
)

func TestStart(t *testing.T) {
	path := t.TempDir() + "/cpu.0"
	stop, err := Start(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Start(t.TempDir() + "/second"); err == nil {
		t.Error("a second profile started while one runs")
	}
	stop()
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("profile %v, %v", fi, err)
	}
	if _, err := Start(t.TempDir() + "/no/such/dir/cpu"); err == nil {
		t.Fatal("a profile in a missing directory started")
	}
}
