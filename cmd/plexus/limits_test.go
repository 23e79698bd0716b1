package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOversizedModels checks that the machine and tree commands refuse
// input past the limits with a message naming the limit, instead of
// running out of memory or reading for ever.
func TestOversizedModels(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"format":1,"name":"big","provenance":{"source":"test"},"nodes":[{"os_index":0}],"cpus":[`)
	for i := range 20_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"core":%d,"l2":-1,"l3":-1}`, i, i)
	}
	b.WriteString("]}")
	big := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(big, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"machine", "--hwloc", "/dev/zero"}, "not a regular file: /dev/zero is a character device"},
		{[]string{"machine", "--model", "/dev/zero"}, "not a regular file: /dev/zero"},
		{[]string{"tree", "--model", big}, "20000 CPUs, more than topo.MaxCostCPUs = 2048"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, errOut, code := plexus(t, tc.args...)
			if code == 0 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q; want an error with %q", code, errOut, tc.want)
			}
		})
	}
}

// TestTreeBestProgress checks that a Best tree shows a progress bar.
func TestTreeBestProgress(t *testing.T) {
	_, errOut, code := plexus(t, "tree", "--model", model2x10, "--topology", "best")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	wantAll(t, "best progress", errOut, "best tree on intel_xeon_e5_v2_2x10", "100%", "done in")
}
