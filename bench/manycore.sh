#!/bin/sh
# bench/manycore.sh PLEXUS OUT
#
# The measurements issues 20 and 21 still need from a host with many
# cores (DEVELOPERS' 16-core host: Open MPI and gcc, no Go), in one run
# from the plexus binary alone, so that a session lent such a host for a
# few minutes spends them measuring. Build the binary where Go is, then
# run this script on the host from the repository root:
#
#     CGO_ENABLED=0 go build -o .dev/plexus ./cmd/plexus
#     sh bench/manycore.sh .dev/plexus "$OUT/r"
#
# Every step has its own timeout and writes its output, stderr and exit
# status under OUT (STEP.out, STEP.err, STEP.rc), so that one step that
# fails or hangs costs only itself. STEPS (a space-separated list of the
# step names below) runs some of them only; the default leaves out the
# namespace cluster steps of issue 18 (resolved), which need root and
# iproute2's ip on PATH and are skipped without them (OUT/skipped). Results go to docs/benchmarks.md
# by hand, with the host's description from OUT/host.txt.
set -u
plexus=${1:?usage: bench/manycore.sh PLEXUS OUT}
out=${2:?usage: bench/manycore.sh PLEXUS OUT}
steps=${STEPS:-"warm coll1 coll2 agree agreebin shmcoll shmallreduce"}
mkdir -p "$out"
repo=$(pwd)

# step NAME SECONDS CMD...: runs CMD under timeout when NAME is in steps.
step() {
	name=$1 secs=$2
	shift 2
	case " $steps " in *" $name "*) ;; *) return 0 ;; esac
	echo "$(date -u +%H:%M:%S) $name: $*" | tee -a "$out/log"
	timeout "$secs" "$@" >"$out/$name.out" 2>"$out/$name.err"
	echo $? >"$out/$name.rc"
	echo "$(date -u +%H:%M:%S) $name: rc $(cat "$out/$name.rc"), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/log"
}

{
	date -u
	uname -a
	nproc
	lscpu 2>/dev/null
	cat /proc/loadavg
} >"$out/host.txt" 2>&1

# The first benchmark after a boot is noisy: a quick team run first.
step warm 120 "$plexus" bench coll --members 4 --quick

# Issue 20: the full team benchmark, twice (its target is met only if it
# holds in both).
step coll1 240 "$plexus" bench coll --members 4,8,16 --json
step coll2 240 "$plexus" bench coll --members 4,8,16 --json

# Issue 21: 1Paxos tree against sequential at 14 replicas, on the
# adaptive tree and on a binary one.
step agree 240 "$plexus" bench kv --bench agree --pin --duration 1s --runs 2 --json --profile --replicas 14 --clients 14,64
step agreebin 240 "$plexus" bench kv --bench agree --pin --duration 1s --runs 2 --json --profile --topology binary --replicas 14 --clients 14,64

# Issue 20: collectives across ranks over shared memory against Open MPI
# at 4, 8 and 16 ranks (barrier, bcast and allreduce of 8 B, paired), and
# the allreduce's algorithms side by side.
step shmcoll 240 "$plexus" bench p2p --transport shm --peers --ranks 4,8,16 --cases coll --runs 3
step shmallreduce 240 "$plexus" bench allreduce --ranks 4,8,16 --runs 5

# Issue 18: two namespace hosts of two ranks each, Plexus against Open MPI.
case " $steps " in *" cluster "* | *" p2pcoll "* | *" allreduce "*) ;; *) exit 0 ;; esac
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null 2>&1; then
	echo "cluster steps skipped: need root and ip (iproute2) on PATH" >>"$out/skipped"
	exit 0
fi
step cluster 60 sh testdata/cluster/cluster.sh up 2
printf 'h1 slots=2\nh2 slots=2\n' >"$out/hosts"
step p2pcoll 300 "$plexus" bench p2p --hostfile "$out/hosts" --rsh "$repo/testdata/cluster/agent" --peers \
	--mpi-if eth0 --transport auto --ranks 4 --cases coll --runs 3
step allreduce 300 "$plexus" bench allreduce --hostfile "$out/hosts" --rsh "$repo/testdata/cluster/agent" \
	--mpi-if eth0 --ranks 4 --runs 5
sh testdata/cluster/cluster.sh down >/dev/null 2>&1
exit 0
