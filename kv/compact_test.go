package kv

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/agree"
	"github.com/plexus-hpc/plexus/agree/group"
)

// startTeamServers runs three Servers in this process on a coll team.
func startTeamServers(t *testing.T, compact uint64) []*Server {
	team, err := group.NewTeam(group.TeamConfig{Replicas: 3, Mode: group.Tree})
	if err != nil {
		t.Fatal(err)
	}
	var ss []*Server
	var rs []*group.Replica
	for id := range 3 {
		s, err := NewServer(group.Config{Agree: agree.Config{ID: id, Replicas: 3}, Tick: time.Millisecond,
			CompactEvery: compact}, team.Net(id))
		if err != nil {
			t.Fatal(err)
		}
		ss, rs = append(ss, s), append(rs, s.Replica())
	}
	team.Attach(rs)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Add(1)
		go func() { defer wg.Done(); _ = s.Run(ctx) }()
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
	return ss
}

// do sends req to s and waits for its answer.
func do(t *testing.T, s *Server, req Request) Response {
	got := make(chan Response, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Handle(ctx, req, func(r Response) { got <- r }); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-got:
		return r
	case <-ctx.Done():
		t.Fatalf("%v request %d not answered", req.Op, req.Seq)
		return Response{}
	}
}

func held(t *testing.T, s *Server) agree.Status {
	got := make(chan agree.Status, 1)
	if err := s.Replica().Call(context.Background(), func(*agree.Node) { got <- s.Replica().Status() }); err != nil {
		t.Fatal(err)
	}
	return <-got
}

// TestCompactionBoundsLog runs a long load of Sets on 50 keys: with
// compaction every 64 slots what each replica holds stays below a bound
// at every point, without it the log holds every Set.
func TestCompactionBoundsLog(t *testing.T) {
	sets := 3000
	if testing.Short() {
		sets = 1000
	}
	for _, compact := range []uint64{0, 64} {
		t.Run(fmt.Sprintf("compact=%d", compact), func(t *testing.T) {
			ss := startTeamServers(t, compact)
			top := 0
			for i := range sets {
				req := Request{Op: OpSet, Client: 7, Seq: uint64(i) + 1,
					Key: fmt.Appendf(nil, "k%02d", i%50), Value: fmt.Appendf(nil, "v%d", i)}
				do(t, ss[i%3], req)
				if i%100 == 99 {
					for _, s := range ss {
						top = max(top, held(t, s).Held)
					}
				}
			}
			if compact > 0 && top > 4*int(compact)+64 {
				t.Errorf("a replica held %d entries with compaction every %d", top, compact)
			}
			if compact == 0 && top < sets-100 {
				t.Errorf("without compaction a replica held at most %d entries after %d Sets", top, sets)
			}
			r := do(t, ss[2], Request{Op: OpGet, Client: 8, Seq: 1, MinSlot: uint64(sets), Key: []byte("k49")})
			if want := fmt.Sprintf("v%d", sets-1); string(r.Value) != want {
				t.Errorf("Get k49 = %q, want %q", r.Value, want)
			}
		})
	}
}
