#!/bin/sh
# nodeagg.sh [N] [CALLERS]: examples/am on 2 namespace hosts x 2 ranks
# (testdata/cluster; root, and "cluster.sh up 2" done), node-level
# aggregation off and on, side by side, twice. Each line sums the ranks'
# packets and messages to the other host during the Call phase (am.Stats)
# and their Calls per second. Run from the repository root.
set -eu
n=${1:-1000}
callers=${2:-32}
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/plexus" ./cmd/plexus
go build -o "$tmp/am" ./examples/am
printf 'h1 slots=2\nh2 slots=2\n' > "$tmp/hosts"
for rep in 1 2; do
	for node in false true; do
		printf 'n=%s callers=%s node=%s: ' "$n" "$callers" "$node"
		"$tmp/plexus" run --hostfile "$tmp/hosts" --rsh "$root/testdata/cluster/agent" -n 4 --timeout 90s -- \
			"$tmp/am" -n "$n" -callers "$callers" -node="$node" 2>&1 | grep 'calls:' |
			awk '{p += $5; m += $11; r += $13}
				END {printf "%d packets to the other host, %d messages, %.2f per packet, %.0f calls/s (sum of ranks)\n", p, m, m / p, r}'
	done
done
