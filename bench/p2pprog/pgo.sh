#!/bin/sh
# pgo.sh regenerates cmd/plexus/default.pgo, the CPU profile go build uses
# to optimise plexus (profile-guided optimisation: inlining and
# devirtualisation of the hot calls of comm and transport/shm), whose
# "bench p2p rank" verb is the Plexus side of plexus bench p2p. It builds
# plexus without a profile, runs the rank program's point-to-point and
# collective cases over shared memory, with serialized and default worlds,
# under plexus run with -cpuprofile, and merges every rank's profile. Run
# it from the module's root:
#
#	sh bench/p2pprog/pgo.sh
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -pgo=off -o "$dir/plexus" ./cmd/plexus
i=0
run() {
	i=$((i + 1))
	"$dir/plexus" run -n 2 -- "$dir/plexus" bench p2p rank -transport shm -cpuprofile "$dir/prof$i" "$@" >/dev/null
}
for mode in -serialized ""; do
	run -bench latency -s 1,8,64,1024 -n 500000 $mode
	run -bench msgrate -n 50000 $mode
	run -bench bw -s 8,1024,65536,1048576 $mode
	run -bench coll -n 200000 $mode
done
go tool pprof -proto "$dir"/prof*.* >cmd/plexus/default.pgo
echo "cmd/plexus/default.pgo: $(wc -c <cmd/plexus/default.pgo) bytes from $i runs"
