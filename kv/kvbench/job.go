package kvbench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/plexus-hpc/plexus/agree/group"
	"github.com/plexus-hpc/plexus/launch"
)

// ErrNoResult reports a job that printed no load line.
var ErrNoResult = errors.New("kvbench: the job printed no result")

// JobConfig is one run of the store as a job: Replicas replica ranks and
// one load rank with Clients clients, for Duration, the broadcast Mode,
// over Transport ("shm", "tcp" or "auto"), the replicas compacting every
// Compact slots (0: never). Prog is the command that runs
// plexus kv serve's ranks (such as the plexus binary and "kv", "serve").
type JobConfig struct {
	Prog              []string
	Replicas, Clients int
	Mode              group.Mode
	Duration          time.Duration
	Transport         string
	Compact           int
	Timeout           time.Duration
}

// Job runs one job and returns its row.
func Job(ctx context.Context, cfg JobConfig) (Row, error) {
	var out, errOut bytes.Buffer
	args := jobArgs(cfg)
	env := append(os.Environ(), "PLEXUS_TRANSPORT="+cfg.Transport)
	job := launch.Job{N: cfg.Replicas + 1, Prog: cfg.Prog[0], Args: args, Timeout: cfg.Timeout,
		Stdout: &out, Stderr: &errOut, Env: env, Bind: launch.BindNone}
	if err := job.Run(ctx); err != nil {
		return Row{}, fmt.Errorf("kv job of %d replicas, %d clients, %v: %w\n%s", cfg.Replicas, cfg.Clients, cfg.Mode, err, errOut.String())
	}
	return parseLoad(&out, cfg)
}

// jobArgs is the command line of the job's ranks, after the program.
func jobArgs(cfg JobConfig) []string {
	return append(append([]string{}, cfg.Prog[1:]...), "--replicas", strconv.Itoa(cfg.Replicas),
		"--clients", strconv.Itoa(cfg.Clients), "--broadcast", cfg.Mode.String(),
		"--duration", cfg.Duration.String(), "--gets", "80", "--key-size", "8", "--value-size", "16",
		"--compact", strconv.Itoa(cfg.Compact))
}

// loadLine is the line plexus kv serve's load rank prints.
type loadLine struct {
	Ops     int     `json:"ops"`
	Failed  int     `json:"failed"`
	OpsPerS float64 `json:"ops_per_s"`
	P50us   float64 `json:"p50_us"`
	P99us   float64 `json:"p99_us"`
}

func parseLoad(out *bytes.Buffer, cfg JobConfig) (Row, error) {
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		_, rest, ok := strings.Cut(sc.Text(), "] ")
		if !ok || !strings.HasPrefix(rest, "{") {
			continue
		}
		var l loadLine
		if err := json.Unmarshal([]byte(rest), &l); err != nil {
			continue
		}
		if l.Failed > 0 {
			return Row{}, fmt.Errorf("kvbench: %d of %d requests failed", l.Failed, l.Ops+l.Failed)
		}
		return Row{Bench: "kv", Impl: cfg.Mode.String(), Replicas: cfg.Replicas, Clients: cfg.Clients,
			OpsPerS: l.OpsPerS, P50us: l.P50us, P99us: l.P99us}, nil
	}
	return Row{}, fmt.Errorf("%w: %d replicas, %d clients", ErrNoResult, cfg.Replicas, cfg.Clients)
}
