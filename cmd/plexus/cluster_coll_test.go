//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/collective"
	"github.com/plexus-hpc/plexus/tree"
)

// wildcardAcross has every rank send one message to every other rank and
// receive them all with AnySource and AnyTag: each sender must be seen
// exactly once, whichever host it is on.
func wildcardAcross(ctx context.Context, w *comm.World) error {
	const tag = 40
	var reqs []*comm.Request
	for p := range w.Size() {
		if p != w.Rank() {
			req, err := w.Isend(p, tag+w.Rank(), greeting(w.Rank(), p))
			if err != nil {
				return err
			}
			reqs = append(reqs, req)
		}
	}
	seen := make(map[int]bool)
	for range w.Size() - 1 {
		buf := make([]byte, 64)
		st, err := w.Recv(ctx, comm.AnySource, comm.AnyTag, buf)
		if err != nil {
			return err
		}
		if seen[st.Source] || st.Tag != tag+st.Source || !bytes.Equal(buf[:st.Len], greeting(st.Source, w.Rank())) {
			return fmt.Errorf("rank %d: wildcard receive got tag %d from rank %d (seen before: %v), %q", w.Rank(), st.Tag, st.Source, seen[st.Source], buf[:st.Len])
		}
		seen[st.Source] = true
	}
	if _, err := comm.Waitall(ctx, reqs...); err != nil {
		return err
	}
	fmt.Printf("rank %d wildcard from %d ranks\n", w.Rank(), len(seen))
	return nil
}

// collectivesAcross runs Barrier, Broadcast and Allreduce of 8 B and
// 4 MiB on trees planned over the hosts, checks every result, and has
// rank 0 count the trees' edges between hosts.
func collectivesAcross(ctx context.Context, w *comm.World) error {
	c, err := collective.New(ctx, w, collective.Config{})
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Barrier(ctx); err != nil {
		return err
	}
	for _, n := range []int{8, 4 << 20} {
		if err := bcastAcross(ctx, c, n); err != nil {
			return err
		}
		if err := allreduceAcross(ctx, c, n/8); err != nil {
			return err
		}
	}
	if err := c.Barrier(ctx); err != nil {
		return err
	}
	if w.Rank() == 0 {
		reduce, bcast := c.Trees()
		fmt.Printf("trees %v %v\ncross-host edges: reduce %d bcast %d binary %d\n", reduce.Children, bcast.Children,
			crossEdges(w, reduce), crossEdges(w, bcast), crossEdges(w, binaryTree(w.Size())))
	}
	fmt.Printf("rank %d collectives in %d levels\n", w.Rank(), c.Levels())
	fmt.Printf("rank %d collectives ok\n", w.Rank())
	return nil
}

func bcastAcross(ctx context.Context, c *collective.Comm, n int) error {
	want := pattern(0, n)[:n]
	buf := make([]byte, n)
	if c.Rank() == 0 {
		copy(buf, want)
	}
	if err := c.Broadcast(ctx, 0, buf); err != nil {
		return err
	}
	if !bytes.Equal(buf, want) {
		return fmt.Errorf("rank %d: broadcast of %d bytes: not rank 0's bytes", c.Rank(), n)
	}
	return nil
}

// allreduceAcross sums n int64 whose element i at rank r is r*i+1.
func allreduceAcross(ctx context.Context, c *collective.Comm, n int) error {
	in, out := make([]int64, n), make([]int64, n)
	for i := range in {
		in[i] = int64(c.Rank()*i + 1)
	}
	if err := collective.AllreduceValues(ctx, c, in, out, func(a, b int64) int64 { return a + b }); err != nil {
		return err
	}
	size := int64(c.Size())
	for i, v := range out {
		if want := int64(i)*size*(size-1)/2 + size; v != want {
			return fmt.Errorf("rank %d: allreduce of %d values: element %d is %d, want %d", c.Rank(), n, i, v, want)
		}
	}
	return nil
}

// crossEdges counts t's edges between ranks on two hosts; t's members are
// ranks. Rank 0 tells hosts apart by the transport to each rank, which is
// enough for ranks that all share a host with rank 0 or all do not, as in
// the two-host jobs here; other pairs count as one host exactly when both
// are reached by TCP.
func crossEdges(w *comm.World, t *tree.Tree) int {
	remote := func(r int) bool { return w.Transport(r) == comm.TransportTCP }
	n := 0
	for parent, kids := range t.Children {
		for _, k := range kids {
			if remote(parent) != remote(k) {
				n++
			}
		}
	}
	return n
}

// binaryTree is the binary tree over ranks 0..n-1 in rank order, the
// placement-blind tree the planned ones are compared with.
func binaryTree(n int) *tree.Tree {
	t := &tree.Tree{Children: map[int][]int{}}
	for r := range n {
		t.Children[r] = nil
		if r > 0 {
			t.Children[(r-1)/2] = append(t.Children[(r-1)/2], r)
		}
	}
	return t
}

// checkCollectives checks the reports of wildcardAcross and
// collectivesAcross in out for ranks ranks: every rank passed, and the
// planned trees cross between hosts less often than the binary tree.
func checkCollectives(t *testing.T, out string, ranks int) {
	t.Helper()
	for r := range ranks {
		for _, line := range []string{fmt.Sprintf("[%d] rank %d wildcard from %d ranks\n", r, r, ranks-1), fmt.Sprintf("[%d] rank %d collectives ok\n", r, r)} {
			if !bytes.Contains([]byte(out), []byte(line)) {
				t.Errorf("want %q in:\n%s", line, out)
			}
		}
	}
	m := regexp.MustCompile(`(?s)trees .*cross-host edges: reduce (\d+) bcast (\d+) binary (\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("rank 0 did not count cross-host edges:\n%s", out)
	}
	reduce, _ := strconv.Atoi(m[1])
	bcast, _ := strconv.Atoi(m[2])
	binary, _ := strconv.Atoi(m[3])
	if reduce >= binary || bcast >= binary {
		t.Errorf("planned trees cross hosts on %d (reduce) and %d (bcast) edges, the binary tree on %d: want fewer\n%s", reduce, bcast, binary, m[0])
	}
}
