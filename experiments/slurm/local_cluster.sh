#!/usr/bin/env bash
# local_cluster.sh start DIR | stop DIR: a single-node SLURM cluster of this machine in the directory
# DIR (created by start), for trying experiments/slurm/sweep.sbatch without a cluster and for the test
# test_sweep_array.sh. start runs munged with a key generated for it, slurmctld and slurmd (Debian 12:
# packages munge, slurmctld, slurmd, slurm-client; scripts/install_deps.sh installs them), each with its
# own pid file, log and socket or ports inside DIR, and no systemd; then waits until the node is idle
# and prints the line to give the SLURM commands the configuration (every directory above DIR must be
# searchable by everyone, chmod o+x, as munged requires of its socket's path):
#   export SLURM_CONF=DIR/slurm.conf
# stop cancels the cluster's jobs, ends the job processes left, then the three daemons (by the pids in
# their pid files, SIGTERM, then SIGKILL after 15 s), and removes nothing (DIR keeps the logs).
# slurmd starts jobs as their submitting user, so it must run as root: start exits 3 otherwise.
# Exit status: 0 done, 1 a daemon did not come up (its log is printed), 2 usage, 3 not root.
set -uo pipefail

usage() { echo "usage: $0 start DIR | stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
action=$1 dir=$2

# pid_of NAME: the pid in DIR/run/NAME.pid when that process is still NAME (a pid is never reused blindly).
pid_of() {
  local pid
  pid=$(cat "$dir/run/$1.pid" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$1" ] && echo "$pid"
}

# stop_daemon NAME: SIGTERM, then SIGKILL when it is still there after 15 s.
stop_daemon() {
  local pid i
  pid=$(pid_of "$1") || return 0
  kill -TERM "$pid" 2>/dev/null
  for i in $(seq 1 150); do
    [ -d "/proc/$pid" ] || return 0
    sleep 0.1
  done
  echo "local_cluster: $1 (pid $pid) ignored SIGTERM for 15 s: SIGKILL" >&2
  kill -KILL "$pid" 2>/dev/null
}

# free_port: a TCP port no socket of this machine is bound to (from /proc/net/tcp*), in 20000..39999.
free_port() {
  local port hex
  for _ in $(seq 1 200); do
    port=$((20000 + RANDOM % 20000))
    hex=$(printf '%04X' "$port")
    if ! awk -v h=":$hex" 'NR > 1 && substr($2, length($2) - 4) == h { found = 1 } END { exit !found }' \
         /proc/net/tcp /proc/net/tcp6 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  return 1
}

show_log() { echo "--- $1 (last lines)" >&2; tail -n 20 "$1" >&2 2>/dev/null; }

start() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "local_cluster: slurmd starts jobs as the user who submitted them and must run as root (this is uid $(id -u))" >&2
    exit 3
  fi
  local tool
  for tool in munged mungekey munge unmunge slurmctld slurmd sbatch squeue sinfo scontrol scancel mountpoint unshare; do
    command -v "$tool" >/dev/null || { echo "local_cluster: $tool not found: run scripts/install_deps.sh" >&2; exit 1; }
  done
  mkdir -p "$dir" || exit 1
  dir=$(cd "$dir" && pwd)
  # munged wants its key private and its socket's directory reachable by everyone
  mkdir -p "$dir/key" "$dir/run" "$dir/log" "$dir/state" "$dir/spool"
  chmod 755 "$dir" "$dir/run"
  chmod 700 "$dir/key"
  mungekey --create --keyfile="$dir/key/munge.key" --bits=1024 >/dev/null 2>&1 || {
    echo "local_cluster: mungekey could not create $dir/key/munge.key" >&2; exit 1; }
  munged --key-file="$dir/key/munge.key" --socket="$dir/run/munge.sock" --pid-file="$dir/run/munged.pid" \
    --log-file="$dir/log/munged.log" --seed-file="$dir/key/munged.seed" ||
    { show_log "$dir/log/munged.log"; exit 1; }
  if ! munge -S "$dir/run/munge.sock" -n 2>/dev/null | unmunge -S "$dir/run/munge.sock" >/dev/null 2>&1; then
    echo "local_cluster: munged runs but a credential does not decode" >&2
    show_log "$dir/log/munged.log"
    exit 1
  fi

  local node ctld_port slurmd_port
  node=$(slurmd -C 2>/dev/null | grep -m 1 '^NodeName=')
  [ -n "$node" ] || { echo "local_cluster: slurmd -C printed no NodeName line" >&2; exit 1; }
  ctld_port=$(free_port) && slurmd_port=$(free_port) || { echo "local_cluster: no free TCP port" >&2; exit 1; }
  [ "$ctld_port" != "$slurmd_port" ] || slurmd_port=$((ctld_port + 1))
  cat >"$dir/slurm.conf" <<EOF
# A single-node cluster of this machine (experiments/slurm/local_cluster.sh).
ClusterName=sketchmm
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/run/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
JobRequeue=1
MinJobAge=3600
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -f "$SLURM_CONF" || { show_log "$dir/log/slurmctld.log"; exit 1; }
  # slurmd (Debian 12: 22.05) starts a cgroup plugin whatever the proctrack and task plugins, and fails
  # without a cgroup file system at /sys/fs/cgroup, as in a chroot or a container. Then it runs in a
  # mount namespace of its own holding an empty cgroup v1 hierarchy named systemd (no controller: it
  # limits nothing); nothing changes outside the namespace, which ends with slurmd and its jobs.
  if mountpoint -q /sys/fs/cgroup; then
    slurmd -f "$SLURM_CONF" || { show_log "$dir/log/slurmd.log"; exit 1; }
  else
    echo "local_cluster: no cgroup file system at /sys/fs/cgroup: slurmd gets one in its own mount namespace" >&2
    # (in a chroot / is no mount point, so the namespace's mounts are made private from /sys down)
    unshare -m --propagation unchanged sh -c '(mount --make-rprivate /sys || mount --make-rprivate /) &&
      mount -t tmpfs -o mode=755 tmpfs /sys/fs/cgroup &&
      mkdir /sys/fs/cgroup/systemd && mount -t cgroup -o none,name=systemd cgroup /sys/fs/cgroup/systemd &&
      exec slurmd -f "$1"' sh "$SLURM_CONF" || { show_log "$dir/log/slurmd.log"; exit 1; }
  fi
  local state="" i
  for i in $(seq 1 300); do
    state=$(sinfo -h -o %T 2>/dev/null | head -n 1)
    [ "$state" = "idle" ] && break
    sleep 0.2
  done
  if [ "$state" != "idle" ]; then
    echo "local_cluster: the node is '$state', not idle, after 60 s" >&2
    show_log "$dir/log/slurmctld.log"
    show_log "$dir/log/slurmd.log"
    exit 1
  fi
  echo "export SLURM_CONF=$dir/slurm.conf"
}

stop() {
  [ -f "$dir/slurm.conf" ] || return 0
  export SLURM_CONF=$dir/slurm.conf
  if pid_of slurmctld >/dev/null; then
    # cancel every job, give them 20 s to end, then end their processes left on the node by pid
    local jobs i pids
    jobs=$(timeout 10 squeue -h -o %A 2>/dev/null | sort -u)
    [ -z "$jobs" ] || timeout 10 scancel $jobs 2>/dev/null
    for i in $(seq 1 100); do
      [ -z "$(timeout 10 squeue -h -t running,completing -o %A 2>/dev/null)" ] && break
      sleep 0.2
    done
    pids=$(timeout 10 scontrol listpids 2>/dev/null | awk 'NR > 1 && $1 ~ /^[0-9]+$/ { print $1 }')
    [ -z "$pids" ] || kill -KILL $pids 2>/dev/null
  fi
  stop_daemon slurmd
  stop_daemon slurmctld
  stop_daemon munged
}

case $action in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
