package main

import (
	"fmt"
	"io"
	"maps"
	"strings"

	"github.com/plexus-hpc/plexus/tree"
)

// mergeEqualRows returns rows without those whose latencies and root equal
// an earlier row's, and, for each row kept that had such twins, their
// topologies. On few CPUs most topologies build the same tree (on 2 CPUs
// all are one edge), and a table of identical rows hides that.
func mergeEqualRows(rows []tree.Row) (kept []tree.Row, twins map[tree.Topology][]tree.Topology) {
	twins = map[tree.Topology][]tree.Topology{}
	for _, r := range rows {
		i := 0
		for i < len(kept) && !sameRow(kept[i], r) {
			i++
		}
		if i == len(kept) {
			kept = append(kept, r)
			continue
		}
		twins[kept[i].Topology] = append(twins[kept[i].Topology], r.Topology)
	}
	return kept, twins
}

func sameRow(a, b tree.Row) bool {
	return a.Root == b.Root && maps.Equal(a.Latency, b.Latency)
}

// writeTwins says, under the table, which rows mergeEqualRows left out.
func writeTwins(w io.Writer, kept []tree.Row, twins map[tree.Topology][]tree.Topology) {
	for _, r := range kept {
		if ts := twins[r.Topology]; len(ts) > 0 {
			names := make([]string, len(ts))
			for i, t := range ts {
				names[i] = t.String()
			}
			fmt.Fprintf(w, "the same latencies as %s: %s\n", r.Topology, strings.Join(names, ", "))
		}
	}
}
