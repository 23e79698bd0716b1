package cliflag

import (
	"errors"
	"flag"
	"io"
	"testing"
)

var errUsage = errors.New("test: bad options")

// TestParse: good flags parse; -h is flag.ErrHelp unwrapped; an unknown
// flag, a bad value and a positional argument wrap the sentinel.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want error
	}{
		{[]string{"-n", "3"}, nil},
		{[]string{"-h"}, flag.ErrHelp},
		{[]string{"-x"}, errUsage},
		{[]string{"-n", "three"}, errUsage},
		{[]string{"-n", "3", "extra"}, errUsage},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		n := fs.Int("n", 0, "a count")
		err := Parse(fs, tc.args, errUsage)
		if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("%q: %v, want %v", tc.args, err, tc.want)
		}
		if errors.Is(tc.want, flag.ErrHelp) && errors.Is(err, errUsage) {
			t.Errorf("%q: -h wraps the usage sentinel", tc.args)
		}
		if tc.want == nil && *n != 3 {
			t.Errorf("%q: n = %d", tc.args, *n)
		}
	}
}
