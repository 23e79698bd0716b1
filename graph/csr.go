package graph

import (
	"fmt"
	"math"
)

// CSR is the adjacency of the vertices [Lo, Lo+len(Off)-1): the
// neighbours of vertex Lo+i are Nbr[Off[i]:Off[i+1]]. An undirected edge
// {u, v} appears in u's list and in v's, a self-loop once.
type CSR struct {
	Lo  int64
	Off []int64
	Nbr []uint32
}

// Len returns the number of vertices whose lists c holds.
func (c *CSR) Len() int64 { return int64(len(c.Off)) - 1 }

// Adj returns the neighbours of vertex v, which c must hold.
func (c *CSR) Adj(v int64) []uint32 {
	i := v - c.Lo
	return c.Nbr[c.Off[i]:c.Off[i+1]]
}

// Degree returns the length of v's list.
func (c *CSR) Degree(v int64) int64 {
	i := v - c.Lo
	return c.Off[i+1] - c.Off[i]
}

// FromEdges builds the CSR of the vertices [lo, hi) from an undirected
// edge list: each edge goes in the list of each endpoint in range. It is
// the plain form of what the ranks build together, for tests and tools.
// Endpoints must be vertices, 0 to 2^32-1 (neighbours are stored in 32
// bits), and 0 <= lo <= hi: FromEdges panics naming the edge or range
// otherwise, as it has no error to return.
func FromEdges(lo, hi int64, edges [][2]int64) CSR {
	if lo < 0 || hi < lo {
		panic(fmt.Sprintf("graph: FromEdges of vertices [%d, %d)", lo, hi))
	}
	for i, e := range edges {
		if e[0] < 0 || e[1] < 0 || e[0] > math.MaxUint32 || e[1] > math.MaxUint32 {
			panic(fmt.Sprintf("graph: FromEdges: edge %d (%d, %d) has an endpoint that is no vertex", i, e[0], e[1]))
		}
	}
	c := CSR{Lo: lo, Off: make([]int64, hi-lo+1)}
	each := func(f func(u, v int64)) {
		for _, e := range edges {
			if e[0] >= lo && e[0] < hi {
				f(e[0], e[1])
			}
			if e[1] != e[0] && e[1] >= lo && e[1] < hi {
				f(e[1], e[0])
			}
		}
	}
	each(func(u, _ int64) { c.Off[u-lo+1]++ })
	for i := 1; i < len(c.Off); i++ {
		c.Off[i] += c.Off[i-1]
	}
	c.Nbr = make([]uint32, c.Off[len(c.Off)-1])
	fill := append([]int64(nil), c.Off[:len(c.Off)-1]...)
	each(func(u, v int64) {
		c.Nbr[fill[u-lo]] = uint32(v)
		fill[u-lo]++
	})
	return c
}
