package comm

// joinWatcher is a local transport that can watch a rank that has not
// joined it yet by its process id (shm.Endpoint.AwaitJoin).
type joinWatcher interface {
	AwaitJoin(rank, pid int)
}

// pidExpecter is a local transport that can watch, by process id, a rank
// it waits on without a wait of the world's (a sender stalled on the
// ring of a rank that never joined: shm.Endpoint.ExpectPIDs).
type pidExpecter interface {
	ExpectPIDs(pids []int)
}

// expectPIDs gives rt's local transport the process ids of the ranks on
// this host, numbered as it numbers them, when Join learnt them.
func (m *mux) expectPIDs(rt *routes) {
	e, ok := rt.local.(pidExpecter)
	if !ok || len(m.pids) != m.cfg.Size {
		return
	}
	local := make([]int, len(rt.ranks))
	for i, r := range rt.ranks {
		local[i] = m.pids[r]
	}
	e.ExpectPIDs(local)
}

// Reach is reacher's: it has the transport that carries peer watch it.
// Before Route it reports false, since the route is not known yet. A
// peer on this host is watched by its process id until it joins the
// local transport, if Join learnt the id (pids).
func (m *mux) Reach(peer int) bool {
	rt := m.routes.Load()
	if rt == nil {
		return false
	}
	if peer < 0 || peer >= len(rt.index) {
		return true
	}
	if i := rt.index[peer]; i >= 0 {
		if j, ok := rt.local.(joinWatcher); ok && peer < len(m.pids) && m.pids[peer] > 0 {
			j.AwaitJoin(i, m.pids[peer])
		}
		return true
	}
	if r, ok := m.remote.(reacher); ok {
		return r.Reach(peer)
	}
	return true
}
