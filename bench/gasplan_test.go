package bench

import (
	"errors"
	"slices"
	"testing"
)

// TestGasPlanGUPSRanks checks that the gups case runs at every job size
// asked for, Open MPI's beside Plexus's, each rank doing its share.
func TestGasPlanGUPSRanks(t *testing.T) {
	c := GasConfig{Transport: "shm", Quick: true, GUPSRanks: []int{1, 2, 4}}.withDefaults()
	var got []int
	for _, gc := range gasPlan(c, true) {
		if gc.impl == "plexus" && slices.Contains(gc.args, "gups") {
			got = append(got, gc.ranks)
			if i := slices.Index(gc.args, "-n"); gc.args[i+1] != map[int]string{1: "100000", 2: "50000", 4: "25000"}[gc.ranks] {
				t.Errorf("%d ranks: %v", gc.ranks, gc.args)
			}
		}
	}
	if !slices.Equal(got, []int{1, 2, 4}) {
		t.Errorf("gups at %v ranks, want 1, 2, 4", got)
	}
	if d := (GasConfig{Transport: "tcp"}).withDefaults().GUPSRanks; !slices.Equal(d, []int{1, 2}) {
		t.Errorf("default gups ranks %v", d)
	}
	if err := (GasConfig{Transport: "tcp", GUPSRanks: []int{0}}).Validate(); !errors.Is(err, ErrGasConfig) {
		t.Errorf("0 ranks: %v", err)
	}
}
