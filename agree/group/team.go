package group

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/coll"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// TeamConfig describes a group whose replicas are members of one
// in-process coll team, one per CPU, as in Smelt's §5.6.
type TeamConfig struct {
	Replicas int
	Mode     Mode
	// Model is the machine; nil means a uniform one with topo.Estimate's
	// costs (CPUs 0..Replicas-1).
	Model *topo.Model
	// CPUs are the replicas' CPUs, replica i on CPUs[i]; nil means the
	// first Replicas CPUs of the model.
	CPUs []int
	// Pin pins each member's goroutine to its CPU.
	Pin bool
}

// teamMaxMessage bounds a broadcast frame on the team's links.
const teamMaxMessage = 12 << 10

// Team runs the broadcasts of a group of in-process replicas on a coll
// team whose broadcast tree is rooted at the first acceptor (replica 1):
// down tree.Adaptive's tree for Mode Tree, or tree.Sequential's (the root
// sends to each member in turn) for Mode Sequential. A later acceptor's
// broadcast reaches the root first. Direct messages are handed to the
// receiving replica in memory; when its inbox is full they are dropped,
// and the protocol sends them again. In-process replicas do not crash:
// an error of one member ends the team.
type Team struct {
	team     *coll.Team
	cpus     []int
	root     int // replica id at the root of the tree
	replicas []*Replica
	relay    chan []byte
	received atomic.Int64 // broadcast frames the members received (tests)
}

// NewTeam builds the team's tree and links.
func NewTeam(cfg TeamConfig) (*Team, error) {
	m, cpus, err := teamMachine(cfg)
	if err != nil {
		return nil, err
	}
	root := 1 % cfg.Replicas
	topology := tree.Adaptive
	if cfg.Mode == Sequential {
		topology = tree.Sequential
	}
	bc, err := tree.Build(m, tree.Spec{Topology: topology, CPUs: cpus, Root: cpus[root]})
	if err != nil {
		return nil, fmt.Errorf("%w: broadcast tree: %w", ErrConfig, err)
	}
	team, err := coll.NewTeam(coll.Config{Broadcast: bc, Pin: cfg.Pin, Slots: 512, MaxMessage: teamMaxMessage})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return &Team{team: team, cpus: cpus, root: root, relay: make(chan []byte, 64)}, nil
}

func teamMachine(cfg TeamConfig) (*topo.Model, []int, error) {
	if cfg.Replicas < 1 {
		return nil, nil, fmt.Errorf("%w: team of %d replicas", ErrConfig, cfg.Replicas)
	}
	m := cfg.Model
	if m == nil {
		var err error
		if m, err = topo.Uniform(1, cfg.Replicas); err == nil {
			err = topo.Estimate(m, topo.DefaultEstimate())
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
	}
	cpus := cfg.CPUs
	if cpus == nil {
		for i := 0; i < cfg.Replicas && i < len(m.CPUs); i++ {
			cpus = append(cpus, m.CPUs[i].ID)
		}
	}
	if len(cpus) != cfg.Replicas {
		return nil, nil, fmt.Errorf("%w: %d CPUs for %d replicas", ErrConfig, len(cpus), cfg.Replicas)
	}
	return m, cpus, nil
}

// Net returns the Net of replica id; Attach must name the replicas
// before they run.
func (t *Team) Net(id int) Net { return teamNet{t: t, id: id} }

// Attach names the replicas, replica i at index i.
func (t *Team) Attach(rs []*Replica) { t.replicas = rs }

// Run runs the team's members until ctx ends: the root broadcasts what
// acceptors hand it, the others receive broadcasts and deliver them to
// their replica. It returns ctx.Err() when ctx ends.
func (t *Team) Run(ctx context.Context) error {
	err := t.team.Run(ctx, func(m *coll.Member) error {
		if m.IsRoot() {
			return t.runRoot(ctx, m)
		}
		return t.runLeaf(ctx, m)
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

func (t *Team) runRoot(ctx context.Context, m *coll.Member) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case f := <-t.relay:
			if _, err := m.Broadcast(ctx, f, len(f)); err != nil {
				return err
			}
			_ = t.replicas[t.root].Deliver(f)
		}
	}
}

func (t *Team) runLeaf(ctx context.Context, m *coll.Member) error {
	id := t.replicaOf(m.CPU())
	buf := make([]byte, teamMaxMessage)
	for {
		n, err := m.Broadcast(ctx, buf, 0)
		if err != nil {
			return err
		}
		t.received.Add(1)
		if _, origin, _, err := frameHeader(buf[:n]); err == nil && origin != id {
			_ = t.replicas[id].Deliver(buf[:n])
		}
	}
}

func (t *Team) replicaOf(cpu int) int {
	for i, c := range t.cpus {
		if c == cpu {
			return i
		}
	}
	return -1
}

type teamNet struct {
	t  *Team
	id int
}

// Send implements Net; a frame for a full inbox is dropped, as a lossy
// link would, and sent again by the protocol.
func (n teamNet) Send(ctx context.Context, to int, frame []byte) error {
	n.t.replicas[to].tryDeliver(frame)
	return nil
}

func (n teamNet) Broadcast(ctx context.Context, frame []byte) error {
	if len(frame) > teamMaxMessage {
		return fmt.Errorf("%w: %d-byte frame", coll.ErrTooLarge, len(frame))
	}
	if n.id == n.t.root { // the root member admits concurrent broadcasts
		_, err := n.t.team.Root().Broadcast(ctx, frame, len(frame))
		return err
	}
	select {
	case n.t.relay <- frame:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
