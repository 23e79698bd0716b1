package sysfs_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/topo/sysfs"
)

// TestParseCPUListRefusesOversized checks that a list is refused before it
// is expanded: "0-1000000000" would be a billion entries.
func TestParseCPUListRefusesOversized(t *testing.T) {
	for _, tc := range []struct{ list, msg string }{
		{"0-1000000000", "CPU number 1000000000 exceeds topo.MaxCPUID = 1048575"},
		{"0-1048575", "1048576 CPUs, more than topo.MaxCPUs = 65536"},
		{"0-40000,50000-90000", "80002 CPUs, more than topo.MaxCPUs"},
	} {
		t.Run(tc.list, func(t *testing.T) {
			ids, err := sysfs.ParseCPUList(tc.list)
			if !errors.Is(err, topo.ErrTooLarge) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %d CPUs, %v; want topo.ErrTooLarge with %q", len(ids), err, tc.msg)
			}
		})
	}
}

// TestDiscoverRefusesOversized checks the limits on files under the root.
func TestDiscoverRefusesOversized(t *testing.T) {
	const online = "devices/system/cpu/online"
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, root string)
		want  error
		msg   string
	}{
		{"online huge", set(online, "0-1000000000"), topo.ErrTooLarge, "exceeds topo.MaxCPUID"},
		{"online device", func(t *testing.T, root string) {
			p := filepath.Join(root, online)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		}, topo.ErrNotRegular, "online is a character device"},
		{"online long", set(online, "0"+strings.Repeat(" ", 1<<20)), topo.ErrTooLarge, "online has 1048578 bytes, more than the limit of 1048576"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := build(t, machine{sockets: 1, cores: 2, threads: 1, nodes: []int{0}, memKB: []uint64{1024}})
			tc.spoil(t, root)
			_, err := sysfs.Discover(root)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v; want %v with %q", err, tc.want, tc.msg)
			}
		})
	}
}
