package comm

import (
	"errors"

	"github.com/plexus-hpc/plexus/transport/shm"
)

// Host areas: in a world whose ranks span several hosts, the ranks of
// each host share that host's shared-memory segment (the mux's local
// transport, which numbers them among themselves in rank order), and so
// its collective area. A host area is that area, as World.Area is the
// whole world's on one host: comm/collective runs hierarchical barriers,
// broadcasts and allreduces on it, each host's ranks meeting on their
// posts and one rank per host crossing between hosts on links
// (docs/design/collectives.md, "Across hosts").

// Hosts returns the world's ranks grouped by host: hosts in the order of
// their lowest rank, each host's ranks in increasing order. Every rank
// gets the same groups. A world that Join did not make (an in-process
// one) counts as one host.
func (w *World) Hosts() [][]int {
	if len(w.hosts) != w.cfg.Size {
		all := make([]int, w.cfg.Size)
		for r := range all {
			all[r] = r
		}
		return [][]int{all}
	}
	return groupHosts(w.hosts)
}

// groupHosts groups ranks by their hosts[r], hosts in the order of their
// lowest rank.
func groupHosts(hosts []string) [][]int {
	at := map[string]int{}
	var groups [][]int
	for r, h := range hosts {
		i, ok := at[h]
		if !ok {
			i = len(groups)
			at[h] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], r)
	}
	return groups
}

// errNoHostArea reports a world without host areas.
var errNoHostArea = errors.New("comm: no host area")

// HostArea returns a lane of this host's collective area, for a world
// whose ranks span several hosts and share memory on each (Join with the
// default transport). The area's ranks are this host's, numbered among
// themselves in rank order (Hosts gives the world's numbers); ch is a
// link channel the caller reserved and aborts with its other channels,
// as for Area.
//
// ok says whether every rank of the world got a lane: it is false at
// every rank alike when the world lies on one host, runs over TCP alone,
// or every lane is taken, provided every rank calls HostArea in the same
// order relative to other HostArea calls (each call takes a lane at
// every rank, so the lanes agree). The area is nil, with ok true, at a
// rank alone on its host: there is nobody to share posts with.
func (w *World) HostArea(ch int) (a *Area, ok bool) {
	m, isMux := w.t.(*mux)
	if !isMux || len(w.Hosts()) < 2 || ch < 0 || ch >= LinkChannels {
		return nil, false
	}
	lane := int(w.lanes.Add(1)) - 1
	if lane >= shm.PostLanes {
		return nil, false
	}
	posts, ranks, err := m.localPosts(lane)
	if errors.Is(err, errNoHostArea) {
		return nil, true // alone on this host
	}
	if err != nil {
		return nil, false
	}
	me := posts.Rank()
	peer := ranks[(me+1)%len(ranks)]
	a = &Area{Posts: posts, link: Link{w: w, peer: peer, ch: ch, c: w.links.get(peer, ch)},
		bell: make(chan struct{}, 1), ranks: ranks}
	a.link.SetBell(a.bell)
	return a, true
}

// localPosts returns lane of the local transport's collective area and
// the world's number of each of its ranks; errNoHostArea when this rank
// has no local transport (it is alone on its host).
func (m *mux) localPosts(lane int) (*shm.Posts, []int, error) {
	rt := m.routes.Load()
	if m.cfg.Local == nil || rt == nil {
		return nil, nil, errors.New("comm: no shared memory between the ranks of a host")
	}
	if rt.local == nil {
		return nil, nil, errNoHostArea
	}
	p, ok := rt.local.(poster)
	if !ok {
		return nil, nil, errors.New("comm: the local transport has no collective area")
	}
	posts, err := p.Posts(lane)
	if err != nil {
		return nil, nil, err
	}
	return posts, rt.ranks, nil
}

// WorldRank returns the world's number of the area's rank i: i itself on
// a world's area (World.Area), the host's i-th rank on a host area.
func (a *Area) WorldRank(i int) int {
	if a.ranks == nil {
		return i
	}
	return a.ranks[i]
}
