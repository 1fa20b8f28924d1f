#!/usr/bin/env bash
# test_shard_program.sh RANKS MPIEXEC BUILD_DIR: sketchmm_shard_topk and the Python example
# (mpi/examples/shard_topk.py) on files, at RANKS ranks (ctest runs 1 to 4):
#   - exact, with blocks of unequal sizes, an empty one and one smaller than topk, read from an
#     ann-benchmarks file (HDF5 hyperslabs): /idx and /val bit-identical to the file's /neighbors and
#     /distances, which sketchmm_make_ann computed with single-process exact_topk;
#   - the same database as plain and gzipped IDX files: the same result as one rank;
#   - lowrank with every candidate refined: recall 1;
#   - bad input on one rank (a NaN in the last rank's block, a missing file, a --split that does not add
#     up): every rank stops, exit status 2, rank 0 names the failing rank once, no hang (time limits);
#   - the Python example (mpi4py, h5py): identical to the file's exact answer.
# Exit status 0 passed, 1 failed.
set -uo pipefail
[ $# -eq 3 ] || { echo "usage: $0 RANKS MPIEXEC BUILD_DIR" >&2; exit 2; }
np=$1 mpiexec=$2 build=$(cd "$3" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
python=/usr/bin/python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sketchmm-shard.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "test_shard_program ($np ranks): FAIL: $*" >&2; failures=$((failures + 1)); }
run() { "$here/run_mpi.sh" "$mpiexec" "$np" 120 "$@"; }
prog=$build/sketchmm_shard_topk

"$python" -c "import h5py, numpy" 2>/dev/null || { echo "$python cannot import h5py, numpy: run scripts/install_deps.sh" >&2; exit 1; }
"$build/sketchmm_make_ann" --source digits --train-rows 3000 --test-rows 200 --topk 10 --out "$tmp/digits.h5" \
  >/dev/null 2>&1 || { echo "sketchmm_make_ann failed" >&2; exit 1; }

# blocks of unequal sizes with an empty one (rank 1) and, at 4 ranks, one of 5 vectors (below topk = 10)
case $np in
  1) split=3000 ;;
  2) split=0,3000 ;;
  3) split=700,0,2300 ;;
  4) split=5,0,1995,1000 ;;
  *) split="" ;;
esac
split_args=()
[ -z "$split" ] || split_args=(--split "$split")

# h5_equal A:/X B:/Y [ROWS COLS]: the two datasets hold the same values, bit for bit (as their own types)
h5_equal() {
  "$python" - "$@" <<'EOF'
import sys, h5py, numpy as np
def read(spec):
    path, name = spec.split(":/")
    with h5py.File(path, "r") as f:
        return f[name][...]
a, b = read(sys.argv[1]), read(sys.argv[2])
if a.dtype.kind == "f":
    same = a.shape == b.shape and np.array_equal(a.astype(np.float32).view(np.uint32), b.astype(np.float32).view(np.uint32))
else:
    same = a.shape == b.shape and np.array_equal(a.astype(np.int64), b.astype(np.int64))
sys.exit(0 if same else 1)
EOF
}
attr() { "$python" -c "import h5py, sys; print(h5py.File(sys.argv[1], 'r').attrs[sys.argv[2]])" "$1" "$2"; }

# 1. exact from the ann file against its single-process answer
if run "$prog" --database "ann:$tmp/digits.h5" "${split_args[@]}" --reps 1 --save-result --out "$tmp/exact.h5" \
     >"$tmp/exact.log" 2>&1; then
  h5_equal "$tmp/exact.h5:/idx" "$tmp/digits.h5:/neighbors" || fail "exact /idx differs from the file's /neighbors"
  h5_equal "$tmp/exact.h5:/val" "$tmp/digits.h5:/distances" || fail "exact /val differs from the file's /distances"
else
  fail "the exact run: $(tail -n 5 "$tmp/exact.log")"
fi

# 2. the same database as IDX files (bytes), plain and gzipped, against one rank
"$python" - "$tmp" <<'EOF'
import gzip, struct, sys
import numpy as np
tmp = sys.argv[1]
rng = np.random.default_rng(5)
for name, count in (("db", 2500), ("q", 60)):
    data = rng.integers(0, 256, size=(count, 7, 9), dtype=np.uint8)
    raw = struct.pack(">IIII", 0x803, count, 7, 9) + data.tobytes()
    open(f"{tmp}/{name}.idx", "wb").write(raw)
    with gzip.open(f"{tmp}/{name}.idx.gz", "wb") as f:
        f.write(raw)
EOF
"$here/run_mpi.sh" "$mpiexec" 1 120 "$prog" --database "idx:$tmp/db.idx" --queries "idx:$tmp/q.idx" --reps 1 \
  --save-result --out "$tmp/idx1.h5" >"$tmp/idx1.log" 2>&1 || fail "the IDX run on one rank: $(tail -n 3 "$tmp/idx1.log")"
for suffix in idx idx.gz; do
  if run "$prog" --database "idx:$tmp/db.$suffix" --queries "idx:$tmp/q.$suffix" --reps 1 --save-result \
       --out "$tmp/idx-$suffix.h5" >"$tmp/idx.log" 2>&1; then
    h5_equal "$tmp/idx-$suffix.h5:/idx" "$tmp/idx1.h5:/idx" && h5_equal "$tmp/idx-$suffix.h5:/val" "$tmp/idx1.h5:/val" ||
      fail "the $suffix run differs from one rank's"
  else
    fail "the $suffix run: $(tail -n 3 "$tmp/idx.log")"
  fi
done

# 3. lowrank with every candidate refined: every vector found
if run "$prog" --database "ann:$tmp/digits.h5" "${split_args[@]}" --method lowrank --size 8 --candidates 3000 --reps 1 \
     --out "$tmp/lowrank.h5" >"$tmp/lowrank.log" 2>&1; then
  [ "$(attr "$tmp/lowrank.h5" recall)" = "1.0" ] || fail "lowrank with every candidate: recall $(attr "$tmp/lowrank.h5" recall)"
else
  fail "the lowrank run: $(tail -n 3 "$tmp/lowrank.log")"
fi

# 4. bad input on one rank: every rank stops with status 2 and rank 0 names the rank, once
"$python" - "$tmp" <<'EOF'
import sys, h5py, numpy as np
tmp = sys.argv[1]
with h5py.File(f"{tmp}/digits.h5", "r") as f:
    train, test = f["train"][...], f["test"][...]
train[2999, 3] = np.nan  # the last vector: the last rank's block
with h5py.File(f"{tmp}/nan.h5", "w") as f:
    f["train"], f["test"] = train, test
EOF
expect_usage_error() { # WHAT PATTERN ARGS...: exit status 2 and PATTERN printed exactly once
  local what=$1 pattern=$2 rc
  shift 2
  run "$prog" "$@" --reps 1 --out "$tmp/bad.h5" >"$tmp/bad.log" 2>&1
  rc=$?
  [ "$rc" -ne 0 ] || { fail "$what: exit status 0"; return; }
  [ "$(grep -c -- "$pattern" "$tmp/bad.log")" -eq 1 ] || fail "$what: '$pattern' not printed once: $(head -c 600 "$tmp/bad.log")"
  grep -q "time limit" "$tmp/bad.log" && fail "$what: a rank hung until mpiexec's time limit"
  [ ! -e "$tmp/bad.h5" ] || fail "$what: a results file was written"
}
expect_usage_error "a NaN in the last rank's block" "rank $((np - 1)): .*not a finite float" \
  --database "$tmp/nan.h5:/train" --queries "$tmp/nan.h5:/test"
expect_usage_error "a missing file" "rank 0: .*cannot open" --database "ann:$tmp/none.h5"
short=2999
for ((r = 1; r < np; r++)); do short+=",0"; done
expect_usage_error "a --split that does not add up" "adds up to 2999" --database "ann:$tmp/digits.h5" --split "$short"

# 5. the Python example (mpi4py); not with a sanitizer build's library (python3 would need the sanitizer
#    runtime preloaded): SKETCHMM_SHARD_TEST_PYTHON=0
if [ "${SKETCHMM_SHARD_TEST_PYTHON:-1}" = 0 ]; then
  echo "test_shard_program: the Python example left out (SKETCHMM_SHARD_TEST_PYTHON=0)"
elif "$python" -c "import mpi4py, cffi" 2>/dev/null; then
  PYTHONPATH=$source_dir/python SKETCHMM_LIBRARY=$build/libsketchmm.so \
    run "$python" "$source_dir/mpi/examples/shard_topk.py" --file "$tmp/digits.h5" --check \
      --library "$build/libsketchmm_mpi.so" >"$tmp/python.log" 2>&1 ||
    fail "the Python example: $(tail -n 5 "$tmp/python.log")"
  grep -q "identical to the single-process exact_topk" "$tmp/python.log" || fail "the Python example: $(cat "$tmp/python.log")"
else
  fail "$python cannot import mpi4py and cffi: run scripts/install_deps.sh (python3-mpi4py, python3-cffi)"
fi

[ "$failures" -eq 0 ] || exit 1
echo "test_shard_program: $np rank(s): exact = single-process (HDF5 slices, IDX plain and gzipped), lowrank every candidate recall 1, bad input on one rank refused everywhere, the Python example"
