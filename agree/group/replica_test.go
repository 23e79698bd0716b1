package group

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/agree"
)

// TestNewRefusesNegativeTick: a negative clock period is a configuration
// error, not a panic when the replica starts its ticker.
func TestNewRefusesNegativeTick(t *testing.T) {
	_, err := New(Config{Agree: agree.Config{ID: 0, Replicas: 3}, Tick: -time.Second}, nil)
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "tick -1s") {
		t.Fatalf("New with tick -1s: %v, want ErrConfig naming the tick", err)
	}
	r, err := New(Config{Agree: agree.Config{ID: 0, Replicas: 3}}, nil)
	if err != nil || r.cfg.Tick <= 0 {
		t.Fatalf("New with tick 0: %v, tick %v, want the default period", err, r.cfg.Tick)
	}
}
