package kvbench

import (
	"context"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/agree/group"
)

func TestAgree(t *testing.T) {
	for _, m := range []group.Mode{group.Tree, group.Sequential} {
		r, err := Agree(context.Background(), AgreeConfig{Replicas: 3, Clients: 2, Mode: m, Duration: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if r.Bench != "agree" || r.Impl != m.String() || r.Replicas != 3 || r.Clients != 2 || r.OpsPerS <= 0 || r.P99us < r.P50us {
			t.Errorf("implausible row %+v", r)
		}
	}
}

func TestKVLocal(t *testing.T) {
	r, err := KVLocal(context.Background(), AgreeConfig{Replicas: 3, Clients: 3, Mode: group.Tree, Duration: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Bench != "kvlocal" || r.Replicas != 3 || r.OpsPerS <= 0 || r.P99us < r.P50us {
		t.Errorf("implausible row %+v", r)
	}
}
