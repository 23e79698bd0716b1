#!/bin/sh
# pgo.sh regenerates default.pgo, the CPU profile go build uses to optimise
# p2pprog (profile-guided optimisation: inlining and devirtualisation of the
# hot calls of comm and transport/shm). It builds p2pprog without a profile,
# runs its point-to-point and collective cases over shared memory, with
# serialized and default worlds, under plexus run with -cpuprofile, and
# merges every rank's profile. Run it from the module's root:
#
#	sh bench/p2pprog/pgo.sh
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -pgo=off -o "$dir/p2pprog" ./bench/p2pprog
go build -o "$dir/plexus" ./cmd/plexus
i=0
run() {
	i=$((i + 1))
	"$dir/plexus" run -n 2 -- "$dir/p2pprog" -transport shm -cpuprofile "$dir/prof$i" "$@" >/dev/null
}
for mode in -serialized ""; do
	run -bench latency -s 1,8,64,1024 -n 500000 $mode
	run -bench msgrate -n 50000 $mode
	run -bench bw -s 8,1024,65536,1048576 $mode
	run -bench coll -n 200000 $mode
done
go tool pprof -proto "$dir"/prof*.* >bench/p2pprog/default.pgo
echo "bench/p2pprog/default.pgo: $(wc -c <bench/p2pprog/default.pgo) bytes from $i runs"
