#!/bin/sh
# Builds the Open MPI peer programs with mpicc -O2 into OUT (default
# bench/peers/bin, ignored by git), to run them by hand under mpirun.
# plexus bench needs no script: it carries these sources and compiles them
# itself (bench/peersrc.go). Exit status 3 with "skipped: mpicc not found"
# when there is no mpicc.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/bin}
if ! command -v "${MPICC:-mpicc}" >/dev/null 2>&1; then
	echo "skipped: mpicc not found (install libopenmpi-dev)" >&2
	exit 3
fi
mkdir -p "$out"
for p in latency bw msgrate coll am gups; do
	"${MPICC:-mpicc}" -O2 -Wall -o "$out/$p" "$here/$p.c"
done
echo "built latency bw msgrate coll am gups in $out"
