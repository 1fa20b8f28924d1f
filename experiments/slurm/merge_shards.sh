#!/usr/bin/env bash
# merge_shards.sh [--overwrite] SPEC OUT_DIR N OUT.h5: after the job array of sweep.sbatch, check that
# every shard file OUT_DIR/shard-I-of-N.h5 holds all the configurations of its shard (a task that failed
# or was cancelled leaves fewer: run it again, `scontrol requeue JOBID_I` or `sbatch --array=I
# sweep.sbatch SPEC OUT_DIR N`, and it resumes), then merge them into OUT.h5 (sketchmm_sweep merge, which
# checks every row) and check that OUT.h5 holds the whole grid. SKETCHMM_SWEEP names the driver
# (default build/sketchmm_sweep). Exit status 0 when OUT.h5 holds every configuration once, 1 when a shard
# is missing or incomplete (each named), 2 for a bad command line or a failed merge.
set -uo pipefail
overwrite=()
if [ "${1:-}" = "--overwrite" ]; then overwrite=(--overwrite); shift; fi
if [ $# -ne 4 ] || ! [[ $3 =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [--overwrite] SPEC OUT_DIR N OUT.h5" >&2
  exit 2
fi
spec=$1 out_dir=$2 shards=$3 out=$4
sweep=${SKETCHMM_SWEEP:-build/sketchmm_sweep}
export HDF5_USE_FILE_LOCKING=FALSE

# configurations of shard I of N (or of the whole grid without --shard), from the driver's dry run
count_of() {
  "$sweep" --spec "$spec" "$@" --dry-run | sed -nE 's/^(grid|shard [0-9]+\/[0-9]+): ([0-9]+) configurations.*/\2/p' | tail -n 1
}
# rows of a results file, as `sketchmm_sweep check` counts them (every row sound), or nothing
rows_of() {
  "$sweep" check "$1" 2>/dev/null | sed -nE 's/^.*: ([0-9]+) rows, every row sound$/\1/p'
}

inputs=() missing=0
for ((i = 0; i < shards; i++)); do
  file=$out_dir/shard-$i-of-$shards.h5
  want=$(count_of --shard "$i/$shards")
  [ -n "$want" ] || { echo "merge_shards: cannot read the grid of $spec" >&2; exit 2; }
  have=$( [ -f "$file" ] && rows_of "$file" )
  if [ "${have:-0}" != "$want" ]; then
    echo "merge_shards: shard $i/$shards: ${have:-no} sound rows in $file of its $want configurations: run task $i again (it resumes)" >&2
    missing=$((missing + 1))
  fi
  inputs+=("$file")
done
[ "$missing" -eq 0 ] || exit 1
"$sweep" merge "${overwrite[@]}" "$out" "${inputs[@]}" || exit 2
total=$(count_of)
merged=$(rows_of "$out")
if [ "$merged" != "$total" ]; then
  echo "merge_shards: $out holds ${merged:-no} rows of the $total configurations of the grid" >&2
  exit 1
fi
echo "merge_shards: $out holds the $total configurations of $spec (from $shards shards)"
