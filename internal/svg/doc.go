// Package svg writes the plots of the plexus command as standalone SVG
// files, using only the standard library: heat maps of pairwise cost
// matrices (one, or send and receive side by side like Smelt's Figure 6),
// line plots of latency against group size for the multicast sweep, and
// drawings of broadcast trees.
//
// The writers take plain data (matrices, series, child lists) rather than
// topo or tree types, so the package has no dependencies and its output is
// easy to test: every cell, point and node carries a class attribute
// ("cell", "point", "node") and a <title> tooltip.
package svg
