package svg

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
)

// TreeGraph is a rooted tree of numbered nodes (CPU ids), each node's
// children listed in send order.
type TreeGraph struct {
	Title    string
	Root     int
	Children map[int][]int
}

// Tree layout, in pixels.
const (
	tgSlot   = 36 // horizontal space per leaf
	tgLayer  = 90 // vertical space per depth
	tgRadius = 13
	tgMargin = 30
	tgTop    = 50
)

// WriteTree draws t layered by depth, the root on top, each parent centred
// above its children and children left to right in send order; every edge
// is labelled with its position in the parent's send order.
func WriteTree(w io.Writer, t TreeGraph) error {
	pos, leaves, depth, err := layoutTree(t)
	if err != nil {
		return err
	}
	width := math.Max(300, 2*tgMargin+float64(leaves)*tgSlot)
	d := newDoc(width, tgTop+float64(depth)*tgLayer+2*tgMargin)
	d.text(width/2, 24, "middle", "title", t.Title)
	xy := func(u int) (float64, float64) {
		p := pos[u]
		return tgMargin + (p[0]+0.5)*tgSlot, tgTop + tgMargin/2 + p[1]*tgLayer
	}
	// Sorted so that equal trees give byte-identical files.
	nodes := slices.Sorted(maps.Keys(pos))
	for _, u := range nodes {
		x1, y1 := xy(u)
		for i, c := range t.Children[u] {
			x2, y2 := xy(c)
			d.printf(`<line class="edge" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#777" stroke-width="1.5"/>`+"\n",
				num(x1), num(y1), num(x2), num(y2))
			// Label nearer the child, where sibling edges have spread apart.
			lx, ly := x1+(x2-x1)*0.6, y1+(y2-y1)*0.6
			d.text(lx+4, ly, "start", "edge-label", strconv.Itoa(i+1))
		}
	}
	for _, u := range nodes {
		x, y := xy(u)
		fill := "#dbe8f5"
		if u == t.Root {
			fill = "#f5c77e"
		}
		d.printf(`<circle class="node" cx="%s" cy="%s" r="%d" fill="%s" stroke="black"><title>cpu %d</title></circle>`+"\n",
			num(x), num(y), tgRadius, fill, u)
		d.text(x, y+4, "middle", "node-label", strconv.Itoa(u))
	}
	return d.finish(w)
}

// layoutTree gives every node reachable from the root a (slot, depth)
// position: leaves take consecutive slots in depth-first send order and a
// parent sits midway between its first and last child. It fails on a
// cycle or a node reached twice, which would make the drawing a lie.
func layoutTree(t TreeGraph) (pos map[int][2]float64, leaves, depth int, err error) {
	pos = map[int][2]float64{}
	var place func(u, dep int) (float64, error)
	place = func(u, dep int) (float64, error) {
		if _, seen := pos[u]; seen {
			return 0, fmt.Errorf("svg: tree node %d is reached twice", u)
		}
		pos[u] = [2]float64{} // mark before recursing, to catch cycles
		depth = max(depth, dep)
		kids := t.Children[u]
		if len(kids) == 0 {
			leaves++
			pos[u] = [2]float64{float64(leaves - 1), float64(dep)}
			return pos[u][0], nil
		}
		var first, last float64
		for i, c := range kids {
			x, err := place(c, dep+1)
			if err != nil {
				return 0, err
			}
			if i == 0 {
				first = x
			}
			last = x
		}
		pos[u] = [2]float64{(first + last) / 2, float64(dep)}
		return pos[u][0], nil
	}
	_, err = place(t.Root, 0)
	return pos, leaves, depth, err
}
