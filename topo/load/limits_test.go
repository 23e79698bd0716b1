package load_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/topo/load"
)

// TestOpenRefusesOversized checks that Open says why it refuses a device
// or a file past topo.MaxFileBytes instead of reading it.
func TestOpenRefusesOversized(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(big, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, topo.MaxFileBytes+1); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want error
		msg  string
	}{
		{"/dev/zero", topo.ErrNotRegular, "not a regular file: /dev/zero"},
		{big, topo.ErrTooLarge, "more than topo.MaxFileBytes = 536870912"},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			_, err := load.Open(tc.path)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v; want %v with %q", err, tc.want, tc.msg)
			}
		})
	}
}
