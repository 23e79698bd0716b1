#!/bin/sh
# rails.sh up HOST HOST RATE [RATE...] | down HOST HOST
#
# Extra links ("rails") between two hosts of cluster.sh, for multirail
# tests: rail K (K = 1, 2, ...) is a veth pair named railK in both hosts'
# network namespaces, with 10.252.K.I/24 on host hI's end (its own subnet,
# so each rail is a route of its own), shaped at both ends by a tc tbf of
# the K-th RATE (such as 1gbit, 500mbit, 250mbit), a 256 KiB burst and
# up to 100 ms of queue (with less, the slower rails dropped packets under
# a stream of megabytes and sampled far below their rate; commit ce4b8c7).
# Nothing else is
# reachable through them. Where the kernel has MPTCP, each rail's address
# is also an MPTCP endpoint of its host ("ip mptcp endpoint ... signal",
# with limits that accept as many), so that an MPTCP connection over one
# rail adds subflows over the others (plexus bench rail's mptcp impl).
# up removes the two hosts' earlier rails first; down removes them
# (cluster.sh down does too, with the hosts).
set -eu

host() {
	case $1 in h[0-9]*) echo "${1#h}" ;; *) echo "rails.sh: no host $1" >&2; exit 2 ;; esac
}

down() {
	for h in "$1" "$2"; do
		ns=plexus-$h
		ip -n "$ns" mptcp endpoint flush 2>/dev/null || true
		for l in $(ip -n "$ns" -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep '^rail[0-9]*$' || true); do
			ip -n "$ns" link delete "$l" 2>/dev/null || true
		done
	done
}

up() {
	a=$1 b=$2; shift 2
	ia=$(host "$a") ib=$(host "$b")
	[ "$ia" != "$ib" ] || { echo "rails.sh: two different hosts, please" >&2; exit 2; }
	[ $# -ge 1 ] || { echo "rails.sh: at least one RATE" >&2; exit 2; }
	ip netns list | grep -q "^plexus-$a\b" || { echo "rails.sh: host $a is not up (cluster.sh up)" >&2; exit 1; }
	ip netns list | grep -q "^plexus-$b\b" || { echo "rails.sh: host $b is not up (cluster.sh up)" >&2; exit 1; }
	down "$a" "$b"
	k=0
	for rate in "$@"; do
		k=$((k + 1))
		ip -n "plexus-$a" link add "rail$k" type veth peer name "rail$k" netns "plexus-$b"
		for end in "$a:$ia" "$b:$ib"; do
			h=${end%%:*} i=${end#*:}
			ip -n "plexus-$h" addr add "10.252.$k.$i/24" dev "rail$k"
			ip -n "plexus-$h" link set "rail$k" up
			ip netns exec "plexus-$h" tc qdisc add dev "rail$k" root tbf rate "$rate" burst 256kb latency 100ms
			ip -n "plexus-$h" mptcp endpoint add "10.252.$k.$i" dev "rail$k" signal 2>/dev/null || true
		done
	done
	for h in "$a" "$b"; do
		ip -n "plexus-$h" mptcp limits set subflow $((k + 1)) add_addr_accepted $((k + 1)) 2>/dev/null || true
	done
	echo "rails.sh: $k rails between $a and $b (10.252.K.$ia and 10.252.K.$ib)"
}

case ${1:-} in
up) shift; [ $# -ge 3 ] || { echo "usage: rails.sh up HOST HOST RATE [RATE...]" >&2; exit 2; }; up "$@" ;;
down) shift; [ $# -eq 2 ] || { echo "usage: rails.sh down HOST HOST" >&2; exit 2; }; down "$1" "$2" ;;
*) echo "usage: rails.sh up HOST HOST RATE [RATE...] | down HOST HOST" >&2; exit 2 ;;
esac
