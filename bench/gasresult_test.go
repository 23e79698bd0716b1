package bench

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteGasTable checks the ratio lines against the targets.
func TestWriteGasTable(t *testing.T) {
	rows := []GasResult{
		{Bench: "am", Impl: "aggregated", Transport: "tcp", Ranks: 2, Size: 32, Value: 13e6, Unit: "msgs/s"},
		{Bench: "am", Impl: "direct", Transport: "tcp", Ranks: 2, Size: 32, Value: 1e6, Unit: "msgs/s"},
		{Bench: "am", Impl: "openmpi", Transport: "shm", Ranks: 2, Size: 32, Value: 26e6, Unit: "msgs/s"},
		{Bench: "gups", Impl: "plexus", Transport: "tcp", Ranks: 2, Size: 8, Value: 6e6, Unit: "ops/s"},
		{Bench: "gups", Impl: "openmpi", Transport: "shm", Ranks: 2, Size: 8, Value: 5e6, Unit: "ops/s"},
	}
	var b bytes.Buffer
	if err := WriteGasTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"aggregated/direct over tcp: 13.00× (target ≥ 12×: met)",
		"aggregated (tcp)/openmpi (shm): 0.50× (target ≥ 1×: not met)",
		"gups, 2 ranks, plexus (tcp)/openmpi (shm): 1.20× (target ≥ 1×: met)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}
