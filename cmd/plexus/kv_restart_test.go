package main

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestKVServeRestart runs the store as a job through plexus run with
// compaction every 64 slots and makes replica 1 (the first acceptor),
// 0 (the leader) or 2 lose its state in the middle of a checked load: every
// request is answered, the load rank's check passes (Sets linearizable,
// so no acknowledged Set was lost; Gets sequentially consistent, those
// of the restarted replica's clients included), the restart happened,
// and every replica ends having compacted, holding a bounded log.
func TestKVServeRestart(t *testing.T) {
	bin := kvBinary(t)
	victims := []string{"1", "0", "2"}
	if testing.Short() {
		victims = victims[:1]
	}
	for _, victim := range victims {
		t.Run("restart="+victim, func(t *testing.T) {
			out, errOut, code := plexus(t, "run", "-n", "4", "--timeout", "90s", "--", bin, "kv", "serve",
				"--replicas", "3", "--duration", "1500ms", "--clients", "3", "--keys", "8", "--gets", "50",
				"--check", "--compact", "64", "-v", "--restart", victim+"@500ms")
			line := loadLine(t, out)
			if code != exitOK || line.Failed != 0 || line.Ops == 0 || !line.Checked {
				t.Fatalf("exit %d, load %+v\n%s", code, line, errOut)
			}
			if !strings.Contains(errOut, "replica "+victim+" restarts now") {
				t.Errorf("replica %s did not restart:\n%s", victim, errOut)
			}
			stops := regexp.MustCompile(`replica stops" replica=(\d) .*compacted=(\d+) held=(\d+)`).FindAllStringSubmatch(errOut, -1)
			if len(stops) != 3 {
				t.Fatalf("%d replicas said their final state, want 3:\n%s", len(stops), errOut)
			}
			for _, s := range stops {
				compacted, _ := strconv.Atoi(s[2])
				held, _ := strconv.Atoi(s[3])
				if compacted == 0 || held > 4*64+64 {
					t.Errorf("replica %s compacted at %d and holds %d entries, want a snapshot and at most %d", s[1], compacted, held, 4*64+64)
				}
			}
		})
	}
}

// loadLine is the JSON line of the load rank, rank 3.
func loadLine(t *testing.T, out string) kvLoadLine {
	var line kvLoadLine
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, "[3] "); ok {
			if err := json.Unmarshal([]byte(rest), &line); err != nil {
				t.Fatalf("load line %q: %v", l, err)
			}
		}
	}
	return line
}
