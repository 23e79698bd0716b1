#!/bin/sh
# slurm.sh up N | down | env
#
# Slurm on the namespace hosts of cluster.sh, for multi-host tests (needs
# root). up N brings up hosts h1..hN (cluster.sh up N), installs Debian's
# slurm-wlm and munge when they are missing, and starts, all with files
# under /run/plexus-slurm only:
#   - munged, with a fresh key, on the socket munge.sock there;
#   - slurmctld on h1 (SlurmctldHost h1, 10.251.0.1), h1 being both the
#     login node and a compute node, as on a small cluster;
#   - a slurmd on every host hI (NodeName hI, NodeAddr 10.251.0.I), run
#     inside the host's namespaces through the agent.
# Nothing in /etc changes: clients find the configuration through
# SLURM_CONF=/run/plexus-slurm/slurm.conf, which "env" prints. Plugins
# are ones that work in namespaces without systemd or cgroups
# (proctrack/linuxproc, task/none), and every node claims 2 CPUs
# whatever the machine has, so that "srun -N 2 -n 4" puts 2 ranks on
# each of 2 hosts anywhere. Jobs run as root, the only user the hosts have. "srun", "sbatch" and
# "salloc" are run on a host with the agent, with SLURM_CONF set:
#   SLURM_CONF=/run/plexus-slurm/slurm.conf agent h1 srun -N 2 -n 4 prog
# up removes the leftovers of an earlier run first; down stops what up
# started, removes its files and takes the hosts down (cluster.sh down).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=/run/plexus-slurm

# stop kills the daemons whose pid files are in $dir; their pids may be
# in a host's network namespace, but share this machine's pid space.
stop() {
	[ -d "$dir" ] || return 0
	for f in "$dir"/*.pid; do
		[ -e "$f" ] || continue
		pid=$(cat "$f" 2>/dev/null || true)
		case $pid in ''|*[!0-9]*) continue ;; esac
		kill -TERM "$pid" 2>/dev/null || true
	done
	# slurmctld saves its state on SIGTERM; a second is plenty with no jobs.
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		alive=
		for f in "$dir"/*.pid; do
			[ -e "$f" ] && kill -0 "$(cat "$f" 2>/dev/null)" 2>/dev/null && alive=1
		done
		[ -z "$alive" ] && break
		sleep 0.2
	done
	for f in "$dir"/*.pid; do
		[ -e "$f" ] && kill -KILL "$(cat "$f" 2>/dev/null)" 2>/dev/null || true
	done
	rm -rf "$dir"
}

down() {
	stop
	"$here/cluster.sh" down
}

# install gets slurm-wlm and munge from apt when a daemon is missing;
# apt may be busy with another install for a while, so it retries.
install() {
	command -v slurmctld >/dev/null 2>&1 && command -v slurmd >/dev/null 2>&1 &&
		command -v munged >/dev/null 2>&1 && command -v srun >/dev/null 2>&1 && return 0
	echo "slurm.sh: installing slurm-wlm and munge" >&2
	for _ in 1 2 3 4 5 6 7 8 9 10 11 12; do
		if apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge; then
			return 0
		fi
		sleep 10
	done
	echo "slurm.sh: cannot install slurm-wlm and munge" >&2
	exit 1
}

# conf writes slurm.conf for hosts h1..h$1.
conf() {
	n=$1
	cat > "$dir/slurm.conf" <<EOF
ClusterName=plexus
SlurmctldHost=h1(10.251.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.sock
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool-%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
PlugStackConfig=$dir/plugstack.conf
KillWait=2
InactiveLimit=0
MinJobAge=60
SlurmdTimeout=30
MessageTimeout=10
NodeName=DEFAULT CPUs=2 RealMemory=1000 State=UNKNOWN
EOF
	for i in $(seq 1 "$n"); do
		echo "NodeName=h$i NodeAddr=10.251.0.$i NodeHostname=h$i" >> "$dir/slurm.conf"
	done
	echo "PartitionName=plexus Nodes=h[1-$n] Default=YES MaxTime=10 State=UP OverSubscribe=YES" >> "$dir/slurm.conf"
	: > "$dir/plugstack.conf"
}

# waitidle waits until sinfo, run on h1, reports all n nodes idle.
waitidle() {
	n=$1
	for _ in $(seq 1 100); do
		idle=$(SLURM_CONF=$dir/slurm.conf "$here/agent" h1 sinfo -h -N -t idle -o %N 2>/dev/null | wc -l)
		[ "$idle" -eq "$n" ] && return 0
		sleep 0.2
	done
	echo "slurm.sh: $idle of $n nodes idle after 20s" >&2
	SLURM_CONF=$dir/slurm.conf "$here/agent" h1 sinfo -N -l >&2 || true
	tail -n 20 "$dir"/*.log >&2 || true
	exit 1
}

up() {
	n=$1
	case $n in ''|*[!0-9]*) echo "slurm.sh: N must be a number" >&2; exit 2 ;; esac
	if [ "$n" -lt 1 ] || [ "$n" -gt 200 ]; then echo "slurm.sh: N must be 1 to 200" >&2; exit 2; fi
	install
	stop
	"$here/cluster.sh" up "$n"
	mkdir -m 0700 "$dir" "$dir/ctld"
	dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 2>/dev/null
	chmod 0400 "$dir/munge.key"
	munged --force --key-file="$dir/munge.key" --socket="$dir/munge.sock" --pid-file="$dir/munged.pid" \
		--log-file="$dir/munged.log" --seed-file="$dir/munged.seed"
	conf "$n"
	export SLURM_CONF="$dir/slurm.conf"
	"$here/agent" h1 slurmctld -f "$SLURM_CONF" -i
	for i in $(seq 1 "$n"); do
		mkdir -m 0700 "$dir/spool-h$i"
		"$here/agent" "h$i" slurmd -f "$SLURM_CONF" -N "h$i"
	done
	waitidle "$n"
	echo "slurm.sh: slurm up on h1..h$n (SLURM_CONF=$SLURM_CONF)"
}

case ${1:-} in
up) [ $# -eq 2 ] || { echo "usage: slurm.sh up N" >&2; exit 2; }; up "$2" ;;
down) down ;;
env) echo "SLURM_CONF=$dir/slurm.conf" ;;
*) echo "usage: slurm.sh up N | down | env" >&2; exit 2 ;;
esac
