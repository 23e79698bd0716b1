package group

import (
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/plexus-hpc/plexus/affinity"
	"github.com/plexus-hpc/plexus/internal/wait"
	"github.com/plexus-hpc/plexus/ring"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// TeamConfig describes a group whose replicas run in one process, one
// per CPU, as in Smelt's §5.6.
type TeamConfig struct {
	Replicas int
	Mode     Mode
	// Model is the machine; nil means a uniform one with topo.Estimate's
	// costs (CPUs 0..Replicas-1).
	Model *topo.Model
	// CPUs are the replicas' CPUs, replica i on CPUs[i]; nil means the
	// first Replicas CPUs of the model.
	CPUs []int
	// Pin pins each replica's goroutine to its CPU.
	Pin bool
	// Topology is the tree of Mode Tree; zero means tree.Adaptive, the
	// machine-aware tree built for a broadcast's latency. Others (such as
	// tree.Binary, whose root sends two messages) trade latency for a
	// root that sends less.
	Topology tree.Topology
	// Profile makes every replica time the parts of a sample of its
	// loop's sweeps (Replica.Profile), at the cost of a few clock reads
	// per sampled sweep.
	Profile bool
}

// teamSlots is the capacity of each link's ring: a frame of up to
// teamSlots/2 slots of ring.SlotPayload bytes (7 KiB) goes on the link,
// a longer one (a view with its log, a snapshot) to the inbox.
const teamSlots = 256

// teamMaxFrame is the longest frame a link carries.
const teamMaxFrame = teamSlots / 2 * ring.SlotPayload

// Team links the replicas of a group that run in one process, the way
// Smelt's replicas are linked: a single-producer single-consumer ring
// (package ring) from every replica to every other, which each replica's
// goroutine polls between steps, so that no message between replicas
// goes through a channel or the scheduler. A replica's broadcast goes
// down a tree rooted at it, built for the machine model: tree.Adaptive
// for Mode Tree, tree.Sequential (the root sends to each replica in
// turn, the paper's baseline) for Mode Sequential. In Mode Tree the
// first epoch's leader is a leaf of every tree (it already takes every
// request and sends every proposal). Each replica relays a tree frame to
// its children before it steps the frame's messages.
//
// Team is the Net of replicas whose Run polls it (Replica.Run does so
// for any Net made by Team.Net): the replica's goroutine is pinned to
// its CPU when TeamConfig.Pin is set, spins while it has work and
// sleeps when idle until a frame, a call or a tick wakes it. A frame for
// a replica whose ring is full waits in its sender's backlog, in order;
// a frame longer than a ring's message goes to the replica's inbox. A
// replica whose Run returned is skipped: its tree children get its
// relays directly, and a Send to it fails, so that the protocol replaces
// it at once if it led or accepted.
type Team struct {
	cfg     TeamConfig
	cpus    []int
	kids    [][][]int // kids[root][id]: id's children in root's tree
	members []*member
	policy  *wait.Policy
}

// NewTeam builds the team's trees and links.
func NewTeam(cfg TeamConfig) (*Team, error) {
	m, cpus, err := teamMachine(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Pin {
		if err := checkAllowed(cpus); err != nil {
			return nil, err
		}
	}
	t := &Team{cfg: cfg, cpus: cpus, policy: teamPolicy(cfg)}
	for root := range cfg.Replicas {
		kids, err := t.buildTree(m, root)
		if err != nil {
			return nil, err
		}
		t.kids = append(t.kids, kids)
	}
	t.members = newMembers(cfg.Replicas)
	return t, nil
}

// teamPolicy is how an idle replica waits when the replicas leave a P
// free for the rest of the process (its clients): as a waiter with a CPU
// of its own, pinned or not. Else (as many replicas as Ps or more) it
// returns nil: an idle replica sleeps at once. A replica that spins
// there keeps the P that the replica it just woke was queued on, and
// every hop of a decision waits for that spin to end, while the clients
// wait for a P; one that sleeps hands its P over.
func teamPolicy(cfg TeamConfig) *wait.Policy {
	switch {
	case cfg.Replicas >= runtime.GOMAXPROCS(0):
		return nil
	case cfg.Pin:
		return &wait.Pinned
	}
	return &wait.Owned
}

// buildTree returns the children of every replica in the broadcast tree
// rooted at root, by replica id.
func (t *Team) buildTree(m *topo.Model, root int) ([][]int, error) {
	topology := t.cfg.Topology
	switch {
	case t.cfg.Mode == Sequential:
		topology = tree.Sequential
	case topology == 0:
		topology = tree.Adaptive
	}
	bc, err := tree.Build(m, tree.Spec{Topology: topology, CPUs: t.cpus, Root: t.cpus[root]})
	if err != nil {
		return nil, fmt.Errorf("%w: broadcast tree rooted at replica %d: %w", ErrConfig, root, err)
	}
	id := map[int]int{}
	for i, c := range t.cpus {
		id[c] = i
	}
	kids := make([][]int, len(t.cpus))
	for parent, cs := range bc.Children {
		for _, c := range cs {
			kids[id[parent]] = append(kids[id[parent]], id[c])
		}
	}
	if t.cfg.Mode == Tree {
		leafLeader(kids, root, firstLeader(root))
	}
	return kids, nil
}

// firstLeader is the replica that leads while root accepts, as far as
// the team can tell before the replicas run: the first epoch's leader,
// replica 0, which leads until it fails (agree's roles keeps a live
// leader); in a tree rooted at replica 0 itself, replica 1.
func firstLeader(root int) int {
	if root == 0 {
		return 1
	}
	return 0
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

// checkAllowed reports a CPU the process may not run on, before any
// replica runs: Run would otherwise fail at its pinning.
func checkAllowed(cpus []int) error {
	allowed, err := affinity.Allowed()
	if err != nil {
		return fmt.Errorf("%w: pinning: %w", ErrConfig, err)
	}
	for i, c := range cpus {
		if !slices.Contains(allowed, c) {
			return fmt.Errorf("%w: replica %d's CPU %d (the process may use %d CPUs): %w", ErrConfig, i, c, len(allowed), affinity.ErrNotAllowed)
		}
	}
	return nil
}

// newMembers links n members: a ring from each to each other.
func newMembers(n int) []*member {
	ms := make([]*member, n)
	for i := range ms {
		ms[i] = &member{id: i, in: make([]*ring.Ring, n), out: make([]*ring.Ring, n),
			backlog: make([][][]byte, n), bell: make(chan struct{}, 1), buf: make([]byte, teamMaxFrame)}
	}
	for i := range n {
		for j := range n {
			if i != j {
				r := ring.NewHeap(teamSlots)
				ms[i].out[j], ms[j].in[i] = r, r
			}
		}
	}
	return ms
}

// Net returns the Net of replica id; Attach must name the replicas
// before they run.
func (t *Team) Net(id int) Net { return teamNet{t: t, id: id} }

// Attach names the replicas, replica i at index i.
func (t *Team) Attach(rs []*Replica) {
	for i, r := range rs {
		t.members[i].replica = r
		if t.cfg.Profile {
			r.prof = newProbe(monotonic())
		}
	}
}

// monotonic returns a clock of the time since it was made, which reads
// only the monotonic clock.
func monotonic() func() time.Duration {
	base := time.Now()
	return func() time.Duration { return time.Since(base) }
}

// Received returns how many broadcast frames reached replicas other than
// their origin, for tests and monitoring. It may be called at any time.
func (t *Team) Received() int64 {
	var n int64
	for _, m := range t.members {
		n += m.received.Load()
	}
	return n
}
