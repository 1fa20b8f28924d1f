#!/usr/bin/env bash
# The whole test suite, in four builds:
#   1. native Release build: every Check suite, every ISA path this CPU has, the sharded top-k under
#      mpirun at 1-4 ranks (mpi/, Open MPI required: -DSKETCHMM_MPI=ON) and the sweep as a job array
#      on a real single-node SLURM the test starts (experiments/slurm); then the Python
#      package's pytest suite (python/tests) on that build's libsketchmm.so;
#   2. AddressSanitizer + UndefinedBehaviorSanitizer build: the same suites (MPI ones included);
#   3. aarch64 cross build (aarch64-linux-gnu-gcc) of the core library and its
#      suites, run under qemu-aarch64;
#   4. the libFuzzer targets of tests/fuzz (clang): every committed input once,
#      then each target fuzzed for SKETCHMM_FUZZ_SECONDS (default 40) seconds.
# Needs the packages of scripts/install_deps.sh. Ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
passed=0
failed=0
status=0

# tally NAME TOOL OK BAD: add a run's passed and failed counts to the totals (OK empty: TOOL printed no
# summary, counted as one failure).
tally() {
  if [ -z "$3" ]; then
    echo "$1: $2 printed no summary" >&2
    failed=$((failed + 1)); status=1
  else
    passed=$((passed + $3)); failed=$((failed + $4))
    [ "$4" -eq 0 ] || status=1
  fi
}

# run_ctest NAME BUILD_DIR: run ctest there and add its counts to the totals.
run_ctest() {
  local name=$1 dir=$2 log
  log=$(mktemp)
  echo "== $name: ctest"
  ctest --test-dir "$dir" --output-on-failure -j "$jobs" 2>&1 | tee "$log"
  local line total bad
  line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1)
  if [ -z "$line" ]; then
    tally "$name" ctest "" ""
  else
    total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")
    bad=$(sed -E 's/.*passed, ([0-9]+) tests? failed.*/\1/' <<<"$line")
    tally "$name" ctest "$((total - bad))" "$bad"
  fi
  rm -f "$log"
}

# run_pytest NAME LIBRARY: the Python package's pytest suite (python/tests, Debian's /usr/bin/python3)
# on that libsketchmm.so, its passed and failed (and erroring) tests added to the totals.
run_pytest() {
  local name=$1 library=$2 log line
  echo "== $name: pytest python/tests"
  if ! /usr/bin/python3 -c "import cffi, numpy, pytest" 2>/dev/null; then
    echo "$name: /usr/bin/python3 cannot import cffi, numpy and pytest: run scripts/install_deps.sh" >&2
    failed=$((failed + 1)); status=1
    return
  fi
  log=$(mktemp)
  SKETCHMM_LIBRARY=$library /usr/bin/python3 -m pytest -q python/tests 2>&1 | tee "$log"
  line=$(grep -E '^[0-9]+ (passed|failed|errors?|skipped).* in [0-9.]+s' "$log" | tail -n 1)
  local ok=0 bad=0 n
  for n in $(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '^[0-9]+'); do ok=$((ok + n)); done
  for n in $(grep -oE '[0-9]+ (failed|errors?)' <<<"$line" | grep -oE '^[0-9]+'); do bad=$((bad + n)); done
  if [ -z "$line" ]; then tally "$name" pytest "" ""; else tally "$name" pytest "$ok" "$bad"; fi
  rm -f "$log"
}

# build NAME BUILD_DIR CMAKE_ARGS...: configure and build (only the targets in $build_targets when
# that is set), counting a failure as a failed test.
build() {
  local name=$1 dir=$2; shift 2
  echo "== $name: configure and build"
  if cmake -S . -B "$dir" -DSKETCHMM_WERROR=ON "$@" >"$dir.configure.log" 2>&1 &&
     cmake --build "$dir" -j "$jobs" ${build_targets:+--target $build_targets}; then
    return 0
  fi
  cat "$dir.configure.log" >&2
  echo "$name: build failed" >&2
  failed=$((failed + 1)); status=1
  return 1
}

mkdir -p build-tests
build native build-tests/native -DCMAKE_BUILD_TYPE=Release -DSKETCHMM_MPI=ON && {
  run_ctest native build-tests/native
  run_pytest python "$PWD/build-tests/native/libsketchmm.so"
}
build sanitizers build-tests/sanitize -DCMAKE_BUILD_TYPE=Debug -DSKETCHMM_SANITIZE=ON -DSKETCHMM_MPI=ON &&
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 run_ctest sanitizers build-tests/sanitize

if command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null &&
   [ -f /usr/lib/aarch64-linux-gnu/pkgconfig/check.pc ]; then
  PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig \
  build aarch64 build-tests/aarch64 -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=aarch64 \
    -DCMAKE_C_COMPILER=aarch64-linux-gnu-gcc \
    -DCMAKE_CROSSCOMPILING_EMULATOR="qemu-aarch64;-L;/usr/aarch64-linux-gnu;-E;LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib" \
    -DSKETCHMM_BUILD_EXPERIMENTS=OFF -DSKETCHMM_MPI=OFF &&
    run_ctest aarch64 build-tests/aarch64
else
  echo "aarch64: aarch64-linux-gnu-gcc, qemu-aarch64 or arm64 Check missing: run scripts/install_deps.sh" >&2
  failed=$((failed + 1)); status=1
fi

# The fuzz targets: clang and libFuzzer's runtime, proved by linking a fuzz target (as install_deps.sh does).
fuzz_probe=$(mktemp -d)
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
  'int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);' \
  'int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { (void)data; (void)size; return 0; }' \
  >"$fuzz_probe/probe.c"
if ! command -v clang >/dev/null; then
  echo "fuzz: clang not found: run scripts/install_deps.sh (package clang)" >&2
  failed=$((failed + 1)); status=1
elif ! clang -fsanitize=fuzzer,address,undefined "$fuzz_probe/probe.c" -o "$fuzz_probe/probe" >/dev/null 2>&1; then
  echo "fuzz: clang cannot link a libFuzzer program: run scripts/install_deps.sh (package libclang-rt-14-dev)" >&2
  failed=$((failed + 1)); status=1
else
  CC=clang build_targets=sketchmm_fuzz build fuzz build-tests/fuzz -DCMAKE_BUILD_TYPE=Debug \
    -DSKETCHMM_FUZZ=ON -DSKETCHMM_BUILD_TESTS=OFF -DSKETCHMM_MPI=OFF && {
    run_ctest fuzz build-tests/fuzz
    # runs and coverage per target (ctest shows the output of failed tests only)
    echo "== fuzz: summaries"
    cat build-tests/fuzz/fuzz/logs/*.summary 2>/dev/null
  }
fi
rm -rf "$fuzz_probe"

echo
echo "$passed passed, $failed failed"
exit $status
