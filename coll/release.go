package coll

// The broadcast half of an in-process team's barrier releases a member's
// children through one word, the member's release word, that all of them
// poll, rather than one signal per child link. A raise is an atomic add
// on a line the child last read, so raising k children one after another
// costs k line transfers in a row, each waiting for the last; one add
// that k children read costs about one, the children pulling the line in
// parallel. On many cores the per-link raises were most of a wide tree's
// barrier (docs/benchmarks.md, "Many cores").
//
// Invariants: a member's release word counts its releases (one per
// barrier, made after its own broadcast parent released it), written
// only by the member and never reset; each child consumes one release
// per barrier through its own count (relFrom.seen), as with a link's
// signals, so there is no ABA. Only barriers use the words; the links'
// signals in the broadcast direction then go unused, but a wait for a
// release still watches the parent's link, so that its failure ends the
// wait as a signal's would. Wake-ups keep
// door.go's protocol: the member adds, then looks at each child's door.
// Remote teams (other processes) keep the per-link signals, which their
// transport carries.

// wireRelease gives every member of an in-process team a release word and
// every non-root member its broadcast parent's word to await.
func (t *Team) wireRelease() {
	for _, m := range t.members {
		m.rel = new(signalLine)
	}
	for _, m := range t.members {
		for _, c := range t.cfg.Broadcast.Children[m.cpu] {
			w, child := &m.rel.n, t.member(c)
			child.relFrom = &signal{signalState: signalState{rx: w, fast: w}}
			if child.bparent.sig != nil {
				child.relFrom.watch = child.bparent.sig.link
			}
		}
	}
}
