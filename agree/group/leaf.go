package group

// leafLeader makes replica l a leaf of the tree kids (children by
// replica id) rooted at root, by trading places with the first leaf of
// its own subtree: l takes that leaf's place and the leaf l's, children
// and all. The leader already takes every client request and every
// proposal, so a relay there would put the broadcast's cost on the
// replica that bounds the group's throughput next to the acceptor; the
// leaf it trades with is l's descendant, as close to l's place in the
// machine as the tree has. Nothing changes when l is the root, is not in
// the tree, or is a leaf already.
func leafLeader(kids [][]int, root, l int) {
	if l == root || l < 0 || l >= len(kids) || len(kids[l]) == 0 {
		return
	}
	leaf := kids[l][0]
	for len(kids[leaf]) > 0 {
		leaf = kids[leaf][0]
	}
	for p := range kids {
		for i, c := range kids[p] {
			switch c {
			case l:
				kids[p][i] = leaf
			case leaf:
				kids[p][i] = l
			}
		}
	}
	kids[l], kids[leaf] = kids[leaf], kids[l]
}
