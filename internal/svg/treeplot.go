package svg

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
)

// TreeGraph is a rooted tree of numbered nodes (CPU ids), each node's
// children listed in send order.
type TreeGraph struct {
	Title    string
	Root     int
	Children map[int][]int
	// Groups colour the nodes: a node in Groups[i].Nodes is filled with the
	// i-th colour, and the legend names every group with a node in the
	// tree. Colours repeat after nine groups; nodes in no group are white.
	Groups []Group
}

// Group is a named set of tree nodes drawn in one colour, such as the CPUs
// of one NUMA node.
type Group struct {
	Name  string
	Nodes []int
}

// Tree layout, in pixels: the root on the left, a column per depth and a
// row per leaf, so that no two nodes or labels share a row or a column
// however many CPUs the tree has (a 192-CPU tree is tall, not cramped).
const (
	tgRow       = 26  // vertical space per leaf
	tgColumn    = 110 // horizontal space per depth
	tgRadius    = 11  // fits a three-digit label at tgLabelSize
	tgMargin    = 20
	tgLabelSize = 10
	tgTitleMax  = 720 // a canvas widens up to this to fit its title
	tgLegendRow = 20
	tgLegendGap = 30
)

// WriteTree draws t with the root on the left, each parent level with the
// middle of its children and children top to bottom in send order; every
// edge is labelled with its position in the parent's send order, and
// nodes are coloured by group with a legend.
func WriteTree(w io.Writer, t TreeGraph) error {
	pos, leaves, depth, err := layoutTree(t)
	if err != nil {
		return err
	}
	fill, legend := t.colours(pos)
	treeW := 2*tgMargin + 2*tgRadius + float64(depth)*tgColumn
	width := treeW + legendWidth(t.Root, legend)
	width = math.Max(width, math.Min(textWidth(t.Title, titleSize)+2*tgMargin, tgTitleMax))
	top := 24 + float64(len(wrapText(t.Title, titleSize, width-2*tgMargin)))*titleLine
	height := top + math.Max(float64(leaves)*tgRow, float64(len(legend)+1)*tgLegendRow) + tgMargin
	d := newDoc(width, height)
	d.title(width/2, 24, width-2*tgMargin, t.Title)
	xy := func(u int) (float64, float64) {
		p := pos[u]
		return tgMargin + tgRadius + p[1]*tgColumn, top + (p[0]+0.5)*tgRow
	}
	// Sorted so that equal trees give byte-identical files.
	nodes := slices.Sorted(maps.Keys(pos))
	for _, u := range nodes {
		drawEdges(d, u, t.Children[u], xy)
	}
	for _, u := range nodes {
		x, y := xy(u)
		drawNode(d, x, y, u, u == t.Root, fill[u])
	}
	drawTreeLegend(d, treeW+tgLegendGap/2, top, t.Root, legend)
	return d.finish(w)
}

// drawEdges joins u to its children by elbows through a vertical line
// halfway between the columns, and labels each edge with its send order
// just before the child, in the child's row where nothing else is drawn.
func drawEdges(d *doc, u int, kids []int, xy func(int) (float64, float64)) {
	x1, y1 := xy(u)
	bx := x1 + tgColumn/2
	for i, c := range kids {
		x2, y2 := xy(c)
		d.printf(`<polyline class="edge" fill="none" stroke="#888" stroke-width="1.5" points="%s,%s %s,%s %s,%s %s,%s"/>`+"\n",
			num(x1+tgRadius), num(y1), num(bx), num(y1), num(bx), num(y2), num(x2-tgRadius), num(y2))
		d.printf(`<text x="%s" y="%s" text-anchor="end" class="edge-label" font-size="%d" fill="#555">%d</text>`+"\n",
			num(x2-tgRadius-3), num(y2-4), tgLabelSize, i+1)
	}
}

// drawNode draws one node in its group's colour, the root with a thick
// outline.
func drawNode(d *doc, x, y float64, u int, root bool, fill string) {
	if fill == "" {
		fill = "white"
	}
	stroke, class := 1, "node"
	if root {
		stroke, class = 3, "node root"
	}
	d.printf(`<circle class="%s" cx="%s" cy="%s" r="%d" fill="%s" stroke="black" stroke-width="%d"><title>cpu %d</title></circle>`+"\n",
		class, num(x), num(y), tgRadius, fill, stroke, u)
	d.printf(`<text x="%s" y="%s" text-anchor="middle" class="node-label" font-size="%d">%d</text>`+"\n",
		num(x), num(y+3.5), tgLabelSize, u)
}

// legendEntry is one line of a tree's legend.
type legendEntry struct{ name, fill string }

// colours maps every node of the drawing to its group's fill and lists
// the groups that have nodes in it, keeping each group's colour fixed by
// its index so that trees over different CPUs of a machine agree.
func (t *TreeGraph) colours(pos map[int][2]float64) (map[int]string, []legendEntry) {
	fill := map[int]string{}
	var legend []legendEntry
	for i, g := range t.Groups {
		used := false
		for _, u := range g.Nodes {
			if _, ok := pos[u]; ok {
				fill[u], used = groupColour(i), true
			}
		}
		if used {
			legend = append(legend, legendEntry{g.Name, groupColour(i)})
		}
	}
	return fill, legend
}

func legendWidth(root int, legend []legendEntry) float64 {
	w := textWidth(rootLabel(root), titleSize)
	for _, e := range legend {
		w = math.Max(w, textWidth(e.name, titleSize))
	}
	return tgLegendGap + 2*tgRadius + 6 + w + tgMargin
}

func rootLabel(root int) string { return fmt.Sprintf("root: cpu %d", root) }

// drawTreeLegend lists the root's marking, then one swatch per group.
func drawTreeLegend(d *doc, x, y float64, root int, legend []legendEntry) {
	y += tgLegendRow / 2
	d.printf(`<circle class="legend-root" cx="%s" cy="%s" r="7" fill="white" stroke="black" stroke-width="3"/>`+"\n",
		num(x+tgRadius), num(y))
	d.text(x+2*tgRadius+6, y+4, "start", "legend-label", rootLabel(root))
	for _, e := range legend {
		y += tgLegendRow
		d.printf(`<circle class="legend" cx="%s" cy="%s" r="7" fill="%s" stroke="black"/>`+"\n", num(x+tgRadius), num(y), e.fill)
		d.text(x+2*tgRadius+6, y+4, "start", "legend-label", e.name)
	}
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
