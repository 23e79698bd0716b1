package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestSurveyCommand(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"tree", "survey", "--data", "../../data", "--only", "gruyere_NUMA", "--spread", "3", "--exact", "1"}, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"| barrelfish/gruyere_NUMA | 32 | bcast |", "best slower in 0", "Random 8-CPU groups: 1;"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if code := run([]string{"tree", "survey", "--spread", "1"}, &out, &errb); code != exitUsage {
		t.Errorf("--spread 1: exit %d", code)
	}
	if code := run([]string{"tree", "survey", "--data", t.TempDir()}, &out, &errb); code != exitFailure {
		t.Errorf("empty data dir: exit %d", code)
	}
}
