package hwloc

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/topo"
)

// manyPUs is a topology of n PUs on one node, a few dozen bytes each.
func manyPUs(n int) string {
	var b strings.Builder
	b.WriteString(`<topology version="2.0"><object type="Machine" os_index="0" cpuset="0xf...f" nodeset="0x00000001" gp_index="1">`)
	b.WriteString(`<object type="NUMANode" os_index="0" cpuset="0xf...f" nodeset="0x00000001" gp_index="2"/>`)
	for i := range n {
		fmt.Fprintf(&b, `<object type="PU" os_index="%d" gp_index="%d"/>`, i, i+3)
	}
	b.WriteString("</object></topology>")
	return b.String()
}

// repeat is a stream of s over and over, never ending.
type repeat struct {
	s string
	i int
}

func (r *repeat) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.s[r.i:])
		n, r.i = n+c, (r.i+c)%len(r.s)
	}
	return n, nil
}

// TestReadRefusesOversized checks that inputs that used to exhaust memory
// or never end are refused with an error naming the limit.
func TestReadRefusesOversized(t *testing.T) {
	endless := func() io.Reader {
		return io.MultiReader(strings.NewReader(`<topology version="2.0">`), &repeat{s: `<info name="a" value="b"/>`})
	}
	for _, tc := range []struct {
		name string
		read func() (*topo.Model, error)
		want error
		msg  string
		long bool
	}{
		{"device", func() (*topo.Model, error) { return ReadFile("/dev/zero", Options{}) }, topo.ErrNotRegular, "/dev/zero is a character device", false},
		{"70000 PUs", func() (*topo.Model, error) { return Read(strings.NewReader(manyPUs(70_000)), Options{}) },
			topo.ErrTooLarge, "65537 CPUs, more than topo.MaxCPUs = 65536", false},
		{"huge bitmap", func() (*topo.Model, error) {
			return Read(strings.NewReader(strings.Replace(small, `allowed_cpuset="0x0000000f"`, `allowed_cpuset="0x0000000f`+strings.Repeat(",", maxWords)+`"`, 1)), Options{})
		}, topo.ErrTooLarge, "bitmap of 32769 words, more than 32768", false},
		{"endless stream", func() (*topo.Model, error) { return Read(endless(), Options{}) },
			topo.ErrTooLarge, fmt.Sprintf("hwloc XML is longer than the limit of %d bytes", topo.MaxXMLBytes), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.long && testing.Short() {
				t.Skip("reads topo.MaxXMLBytes")
			}
			_, err := tc.read()
			if !errors.Is(err, tc.want) || !strings.Contains(fmt.Sprint(err), tc.msg) {
				t.Fatalf("err = %v; want %v with %q", err, tc.want, tc.msg)
			}
		})
	}
}
