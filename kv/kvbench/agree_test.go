package kvbench

import (
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/agree"
	"github.com/plexus-hpc/plexus/agree/group"
	"github.com/plexus-hpc/plexus/kv"
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

// TestKVLocalCompacts runs the local store with and without compaction:
// with CompactEvery 16 every replica has a snapshot past slot 16 and
// holds fewer entries than it applied; with 0 none compacts.
func TestKVLocalCompacts(t *testing.T) {
	for _, every := range []uint64{0, 16} {
		var sts []agree.Status
		inspect := func(ss []*kv.Server) {
			for _, s := range ss {
				got := make(chan agree.Status, 1)
				if err := s.Replica().Call(context.Background(), func(n *agree.Node) { got <- n.Status() }); err != nil {
					t.Fatal(err)
				}
				sts = append(sts, <-got)
			}
		}
		_, err := kvLocal(context.Background(), AgreeConfig{Replicas: 3, Clients: 3, Mode: group.Tree,
			Duration: 200 * time.Millisecond, CompactEvery: every}, inspect)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range sts {
			if st.Applied < 64 {
				t.Fatalf("compact %d: replica %d applied only %d slots: too few to tell", every, st.ID, st.Applied)
			}
			if compacted := st.Compacted > 0; compacted != (every > 0) || (every > 0 && uint64(st.Held) >= st.Applied/2) {
				t.Errorf("compact %d: replica %d applied %d, snapshot at %d, holds %d entries", every, st.ID, st.Applied, st.Compacted, st.Held)
			}
		}
	}
}

func TestJobArgsCompact(t *testing.T) {
	for _, c := range []int{0, 100} {
		args := jobArgs(JobConfig{Prog: []string{"plexus", "kv", "serve"}, Replicas: 3, Clients: 2, Mode: group.Tree, Compact: c})
		if i := slices.Index(args, "--compact"); i < 0 || i+1 >= len(args) || args[i+1] != strconv.Itoa(c) {
			t.Errorf("compact %d: args %q", c, args)
		}
		if args[0] != "kv" || args[1] != "serve" {
			t.Errorf("args %q do not start with the program's own", args)
		}
	}
}

// dropFirst is a replica that drops every request's first proposal and
// answers the next at once.
type dropFirst struct {
	as    []answer
	seen  map[uint64]bool
	calls int
}

func (d *dropFirst) Propose(_ context.Context, v []byte) error {
	d.calls++
	seq := binary.LittleEndian.Uint64(v[8:])
	if d.seen[seq] {
		answerAt(d.as, 1, 0, v)
	}
	d.seen[seq] = true
	return nil
}

// A client whose proposals the protocol drops proposes them again after
// attemptFor, counts the retries, and goes on; one that never gets an
// answer stops abandonAfter past the run's end with ErrUndecided.
func TestProposerProposesAgain(t *testing.T) {
	d := &dropFirst{as: newAnswers(1), seen: map[uint64]bool{}}
	p := proposer{r: d, a: &d.as[0]}
	if err := p.run(context.Background(), time.Now().Add(3*attemptFor)); err != nil {
		t.Fatal(err)
	}
	if len(p.lat) == 0 || p.retries != len(p.lat) || d.calls != 2*len(p.lat) {
		t.Fatalf("%d answered, %d retries, %d proposals; want one retry and two proposals per answer",
			len(p.lat), p.retries, d.calls)
	}

	q := proposer{r: silent{}, a: &newAnswers(1)[0]}
	start := time.Now()
	err := q.run(context.Background(), start.Add(attemptFor))
	if !errors.Is(err, ErrUndecided) {
		t.Fatalf("a request never answered: err %v, want ErrUndecided", err)
	}
	if d := time.Since(start); d < abandonAfter {
		t.Errorf("gave up after %v, before abandonAfter past the end", d)
	}
}

// silent is a replica that drops every proposal.
type silent struct{}

func (silent) Propose(context.Context, []byte) error { return nil }

// TestDescribe: what a run that fails with ErrUndecided reports names
// every replica's view and applied slot.
func TestDescribe(t *testing.T) {
	team, err := group.NewTeam(group.TeamConfig{Replicas: 2})
	if err != nil {
		t.Fatal(err)
	}
	var rs []*group.Replica
	for id := range 2 {
		r, err := group.New(group.Config{Agree: agree.Config{ID: id, Replicas: 2}}, team.Net(id))
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	team.Attach(rs)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, r := range rs {
		wg.Go(func() { _ = r.Run(ctx) })
	}
	got := describe(ctx, rs)
	cancel()
	wg.Wait()
	for _, want := range []string{"replica 0: {ID:0 Epoch:1", "replica 1: {ID:1 Epoch:1", "Applied:"} {
		if !strings.Contains(got, want) {
			t.Errorf("describe says %q, want it to contain %q", got, want)
		}
	}
}
