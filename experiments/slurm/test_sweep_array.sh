#!/usr/bin/env bash
# test_sweep_array.sh SKETCHMM_SWEEP: the sweep as a SLURM job array, against a real scheduler.
#  1. starts a single-node SLURM of this machine in a temporary directory (local_cluster.sh: munged with
#     a generated key, slurmctld, slurmd, their own pid files, logs and ports);
#  2. submits a small spec (16 dense configurations, 4 per shard) as a 4-task array of sweep.sbatch;
#  3. cancels one task mid-run (after its first row, before its last), then requeues it, and checks that
#     it resumed its shard (its log: "resuming ... N of the 4 configurations to run are done", N >= 1);
#  4. waits for every task to complete, merges the shards (merge_shards.sh), runs the same spec in one
#     process, and compares (compare_results.py): every configuration of the grid exactly once, every
#     column but the timings equal to the single-process run.
# The cluster is stopped on every exit (a trap), the whole test has a deadline (SKETCHMM_SLURM_TEST_SECONDS,
# default 600, below ctest's limit) and every wait a bound. Exit status 0 passed, 1 failed, 77 skipped:
# only when not run as root (slurmd must run as root to start jobs). Missing SLURM or munge programs are a
# failure: scripts/install_deps.sh installs them.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 1 ] || { echo "usage: $0 PATH/TO/sketchmm_sweep" >&2; exit 2; }
sweep=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ -x "$sweep" ] || { echo "test_sweep_array: $1 is not an executable" >&2; exit 2; }
deadline=$((SECONDS + ${SKETCHMM_SLURM_TEST_SECONDS:-600}))
python=/usr/bin/python3

say() { echo "test_sweep_array: $*"; }
skip() { echo "test_sweep_array: SKIP: $*" >&2; exit 77; }
fail() {
  echo "test_sweep_array: FAIL: $*" >&2
  for log in "${tmp:-/nonexistent}"/logs/*.log; do
    [ -f "$log" ] && { echo "--- $log" >&2; tail -n 15 "$log" >&2; }
  done
  exit 1
}
# wait_for WHAT SECONDS COMMAND...: poll COMMAND every 0.2 s until it succeeds, within SECONDS and the deadline.
wait_for() {
  local what=$1 limit=$((SECONDS + $2))
  shift 2
  until "$@"; do
    [ "$SECONDS" -lt "$limit" ] && [ "$SECONDS" -lt "$deadline" ] || fail "timed out waiting for $what"
    sleep 0.2
  done
}

[ "$(id -u)" -eq 0 ] || skip "slurmd must run as root to start jobs (uid $(id -u)); CI runs this test as root"
for tool in munged mungekey slurmctld slurmd sbatch squeue scontrol scancel sinfo; do
  command -v "$tool" >/dev/null || fail "$tool not found: run scripts/install_deps.sh (munge, slurmctld, slurmd, slurm-client)"
done
"$python" -c "import h5py, numpy" 2>/dev/null || fail "$python cannot import h5py and numpy: run scripts/install_deps.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sketchmm-slurm.XXXXXX") || fail "mktemp"
chmod 755 "$tmp" # munged's socket must be reachable by everyone, through every directory above it
cleanup() {
  "$here/local_cluster.sh" stop "$tmp/cluster"
  if [ "${SKETCHMM_KEEP_TMP:-0}" = 1 ]; then echo "test_sweep_array: kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

say "starting a single-node SLURM in $tmp/cluster"
"$here/local_cluster.sh" start "$tmp/cluster" >"$tmp/cluster.env" || fail "the cluster did not start (above)"
export SLURM_CONF=$tmp/cluster/slurm.conf
say "$(sinfo -h -o '%P %D node(s) %c CPUs %T' | head -n 1)"

# 16 dense configurations of about a second each on one thread (2048 x 2048 x 784, 3 rounds), 4 per shard
mkdir -p "$tmp/logs" "$tmp/shards"
cat >"$tmp/spec.json" <<'EOF'
{"mode": "dense", "datasets": ["gaussian"], "shapes": ["2048x2048"], "seeds": [42], "threads": [1],
 "methods": ["gaussian_projection", "countsketch", "srht", "lowrank"], "sketch_dims": [8, 16, 32, 64],
 "reps": 3, "warmup": 1}
EOF
per_shard=4 tasks=4

job=$(sbatch --parsable --array=0-$((tasks - 1)) --cpus-per-task=1 --chdir="$tmp" --output="$tmp/logs/%A_%a.log" \
        --export=ALL,SKETCHMM_SWEEP="$sweep" "$here/sweep.sbatch" "$tmp/spec.json" "$tmp/shards") ||
  fail "sbatch refused the array"
job=${job%%;*}
say "submitted job array $job (tasks 0-$((tasks - 1)))"

state_of() { scontrol -o show job "${job}_$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -n 1 | cut -d= -f2; }
rows_of() { HDF5_USE_FILE_LOCKING=FALSE "$sweep" check "$1" 2>/dev/null | sed -nE 's/^.*: ([0-9]+) rows, every row sound$/\1/p'; }
started() { grep -qE '^\[1/' "$tmp/logs/${job}_$1.log" 2>/dev/null; }
not_running() { [ "$(state_of "$1")" != RUNNING ] && [ "$(state_of "$1")" != COMPLETING ]; }

# Cancel a task after its first row and before its last: the first task whose log shows a finished
# configuration while it still runs. Should a task finish before the cancel reaches it, try the next.
victim=""
tried=()
while [ -z "$victim" ]; do
  [ "$SECONDS" -lt "$deadline" ] || fail "timed out waiting for a task to cancel"
  candidate=""
  for ((t = 0; t < tasks; t++)); do
    [[ " ${tried[*]} " == *" $t "* ]] && continue
    if started "$t" && [ "$(state_of "$t")" = RUNNING ]; then candidate=$t; break; fi
  done
  if [ -z "$candidate" ]; then
    [ "${#tried[@]}" -lt "$tasks" ] || fail "every task finished before it could be cancelled"
    sleep 0.2
    continue
  fi
  tried+=("$candidate")
  sleep 0.3 # the first row is appended right after its progress line
  scancel "${job}_$candidate" || fail "scancel ${job}_$candidate"
  wait_for "task $candidate to stop" 60 not_running "$candidate"
  rows=$(rows_of "$tmp/shards/shard-$candidate-of-$tasks.h5")
  state=$(state_of "$candidate")
  if [ "$state" = CANCELLED ] && [ "${rows:-0}" -ge 1 ] && [ "${rows:-0}" -lt "$per_shard" ]; then
    victim=$candidate
    say "cancelled task $victim mid-run: $rows of its $per_shard configurations in its shard file"
  else
    say "task $candidate: $state with ${rows:-no} rows when the cancel arrived; trying another task"
    [ "$state" = CANCELLED ] && { scontrol requeue "${job}_$candidate"; scontrol update JobId="${job}_$candidate" StartTime=now; }
  fi
done

# requeue it; a requeued job waits about two minutes before it may start again: start it now
scontrol requeue "${job}_$victim" || fail "scontrol requeue ${job}_$victim"
scontrol update JobId="${job}_$victim" StartTime=now || fail "scontrol update StartTime=now"
say "requeued task $victim"

queue_empty() { [ -z "$(squeue -h -j "$job" 2>/dev/null)" ]; }
wait_for "the array to finish" $((deadline - SECONDS)) queue_empty
for ((t = 0; t < tasks; t++)); do
  state=$(state_of "$t")
  [ "$state" = COMPLETED ] || fail "task $t ended $state"
done
restarts=$(scontrol -o show job "${job}_$victim" | grep -o 'Restarts=[0-9]*' | cut -d= -f2)
[ "${restarts:-0}" -ge 1 ] || fail "task $victim reports Restarts=${restarts:-?}"
resumed=$(sed -nE 's/.*resuming .*: ([0-9]+) of the ([0-9]+) configurations to run are done.*/\1 \2/p' \
            "$tmp/logs/${job}_$victim.log" | tail -n 1)
set -- $resumed
[ "${1:-0}" -ge 1 ] && [ "${2:-0}" -eq "$per_shard" ] ||
  fail "the requeued task $victim did not resume its shard (log: '${resumed:-no resuming line}')"
say "every task COMPLETED; task $victim ran again (Restarts=$restarts) and resumed: $1 of $2 done before"

SKETCHMM_SWEEP=$sweep timeout 120 "$here/merge_shards.sh" "$tmp/spec.json" "$tmp/shards" "$tasks" "$tmp/merged.h5" ||
  fail "merge_shards.sh"
say "running the spec in one process for the reference"
OMP_NUM_THREADS=1 timeout $((deadline - SECONDS > 10 ? deadline - SECONDS : 10)) \
  "$sweep" --spec "$tmp/spec.json" --out "$tmp/single.h5" >"$tmp/single.log" 2>&1 ||
  fail "the single-process run: $(tail -n 3 "$tmp/single.log")"
"$python" "$here/compare_results.py" "$tmp/merged.h5" "$tmp/single.h5" || fail "the merged results differ"
say "passed"
