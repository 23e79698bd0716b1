#!/bin/sh
# cluster.sh up N [--rate RATE] | down
#
# A cluster of N namespace "hosts" on this machine, for multi-host tests
# (needs root, iproute2 and util-linux). Host hI (I = 1..N) is:
#   - network namespace plexus-hI (ip netns), loopback up, veth plexus-vI in
#     the root namespace enslaved to bridge plexus-br0, 10.251.0.I/24 inside;
#   - a UTS namespace with hostname hI and a mount namespace with its own
#     /dev/shm (a tmpfs, as on a real host) and /etc/hosts (every hI), both
#     kept by bind mounts of their nsfs files under /run/plexus-cluster, so
#     no process has to stay alive to hold them.
# The bridge has no address and there are no routes, so the hosts reach
# each other and nothing else. --rate puts a tc tbf rate (such as 1gbit)
# on each host's link. "agent HOST CMD..." runs a command on a host.
# up removes the leftovers of an earlier run first; down removes all,
# and kills the processes still running on the hosts.
set -eu
dir=/run/plexus-cluster
br=plexus-br0

down() {
	for ns in $(ip netns list 2>/dev/null | awk '/^plexus-h[0-9]+/ {print $1}'); do
		# What still runs on a host (a rank a failed test left) goes with it.
		for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
		ip netns delete "$ns" 2>/dev/null || true
	done
	for l in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep '^plexus-v[0-9]*$' || true); do
		ip link delete "$l" 2>/dev/null || true
	done
	ip link delete "$br" 2>/dev/null || true
	if [ -d "$dir" ]; then
		for f in "$dir"/*.mnt "$dir"/*.uts; do
			[ -e "$f" ] && umount "$f" 2>/dev/null || true
		done
		umount "$dir" 2>/dev/null || true
		rm -rf "$dir"
	fi
}

up() {
	n=$1; shift
	rate=
	while [ $# -gt 0 ]; do
		case $1 in
		--rate) rate=$2; shift 2 ;;
		*) echo "cluster.sh: unknown option $1" >&2; exit 2 ;;
		esac
	done
	case $n in ''|*[!0-9]*) echo "cluster.sh: N must be a number" >&2; exit 2 ;; esac
	if [ "$n" -lt 1 ] || [ "$n" -gt 200 ]; then echo "cluster.sh: N must be 1 to 200" >&2; exit 2; fi
	down
	mkdir -p "$dir"
	# A mount namespace can be pinned only on a private mount.
	mount --bind "$dir" "$dir"
	mount --make-private "$dir"
	: > "$dir/hosts"
	printf '127.0.0.1\tlocalhost\n' >> "$dir/hosts"
	for i in $(seq 1 "$n"); do printf '10.251.0.%d\th%d\n' "$i" "$i" >> "$dir/hosts"; done
	ip link add "$br" type bridge
	ip link set "$br" up
	for i in $(seq 1 "$n"); do
		ns=plexus-h$i
		ip netns add "$ns"
		ip link add "plexus-v$i" type veth peer name eth0 netns "$ns"
		ip link set "plexus-v$i" master "$br" up
		ip -n "$ns" link set lo up
		ip -n "$ns" addr add "10.251.0.$i/24" dev eth0
		ip -n "$ns" link set eth0 up
		if [ -n "$rate" ]; then
			tc qdisc add dev "plexus-v$i" root tbf rate "$rate" burst 256kb latency 50ms
			ip netns exec "$ns" tc qdisc add dev eth0 root tbf rate "$rate" burst 256kb latency 50ms
		fi
		touch "$dir/h$i.uts" "$dir/h$i.mnt"
		nsenter --net="/run/netns/$ns" unshare --uts="$dir/h$i.uts" --mount="$dir/h$i.mnt" --propagation private \
			sh -c "hostname h$i && mount -t tmpfs -o mode=1777 plexus-shm /dev/shm && mount --bind $dir/hosts /etc/hosts"
	done
	echo "cluster.sh: hosts h1..h$n up (10.251.0.1-$n on $br)"
}

case ${1:-} in
up) shift; [ $# -ge 1 ] || { echo "usage: cluster.sh up N [--rate RATE]" >&2; exit 2; }; up "$@" ;;
down) down ;;
*) echo "usage: cluster.sh up N [--rate RATE] | down" >&2; exit 2 ;;
esac
