package gasrank

import (
	"context"
	"errors"
	"flag"
	"io"
	"testing"
)

func TestParseFlags(t *testing.T) {
	o, err := parseFlags([]string{"-bench", "gups", "-n", "500", "-log", "20", "-transport", "shm"}, io.Discard)
	if err != nil || o.bench != "gups" || o.n != 500 || o.log != 20 || o.transport != "shm" || o.mode != "aggregated" {
		t.Errorf("%+v, %v", o, err)
	}
}

// TestRunBadOptions: Run refuses what it cannot run before it joins a
// world (no job is needed to see the errors), and -h is flag.ErrHelp.
func TestRunBadOptions(t *testing.T) {
	for _, args := range [][]string{
		{"-bench", "pingpong"}, {"-transport", "udp"}, {"-mode", "eager"}, {"-n", "0"}, {"-log", "9"},
		{"-log", "31"}, {"-nosuchflag"}, {"am"},
	} {
		if err := Run(context.Background(), args, io.Discard, io.Discard); !errors.Is(err, ErrUsage) {
			t.Errorf("%v: %v", args, err)
		}
	}
	if err := Run(context.Background(), []string{"-h"}, io.Discard, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
}
