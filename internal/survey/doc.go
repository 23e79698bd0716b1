// Package survey runs the tree generator over every machine Plexus ships
// (the measured Smelt machines and the hwloc topologies with estimated
// costs) and summarises how the best tree compares with the best static
// tree and with Smelt's adaptive tree, for every operation and every
// round-robin group size. `plexus tree survey` prints it; docs/trees.md
// records its output.
package survey
