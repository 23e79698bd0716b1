package sysfs_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/topo/sysfs"
)

func TestParseCPUList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
	}{
		{"", nil},
		{"\n", nil},
		{"0", []int{0}},
		{"7\n", []int{7}},
		{"0-3", []int{0, 1, 2, 3}},
		{"0-3,8,10-11\n", []int{0, 1, 2, 3, 8, 10, 11}},
		{"2-2", []int{2}},
		{"10-11,0-1", []int{0, 1, 10, 11}},
		{"1,0-2,1", []int{0, 1, 2}},
		{"  4-5 \n", []int{4, 5}},
	} {
		got, err := sysfs.ParseCPUList(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseCPUList(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestParseCPUListErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a", `"a" is not a CPU number`},
		{"0-x", `"x" is not a CPU number`},
		{"1-", "missing number"},
		{"-1", "missing number"},
		{"+1", "not a CPU number"},
		{"3-1", "descending"},
		{"1,,2", "empty element"},
		{",", "empty element"},
		{"0-3,", "empty element"},
		{"1 2", "not a CPU number"},
		{"1-2-3", "not a CPU number"},
		{"0-7:2", "not a CPU number"},
		{"0-99999999999999999999", "exceeds"},
		{"0x1", "not a CPU number"},
	} {
		got, err := sysfs.ParseCPUList(tc.in)
		if err == nil {
			t.Errorf("ParseCPUList(%q) = %v, want error", tc.in, got)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.in) {
			t.Errorf("ParseCPUList(%q) error %q, want it to quote the list and say %q", tc.in, err, tc.want)
		}
	}
}
