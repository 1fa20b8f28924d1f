#!/usr/bin/env bash
# tests/fuzz/run.sh - run one libFuzzer target of tests/fuzz (README.md there), building it first.
#
#   bash tests/fuzz/run.sh TARGET [SECONDS] [-- LIBFUZZER_FLAG...]   fuzz for SECONDS (default 60)
#   bash tests/fuzz/run.sh --regress TARGET                           every committed input once
#   bash tests/fuzz/run.sh all [SECONDS]                              each target in turn
#
# TARGET is fuzz_idx, fuzz_h5_matrix, fuzz_ann, fuzz_spec, fuzz_api or fuzz_tuning. Options (before TARGET):
#   --build-dir DIR  the fuzz build (default: build-fuzz at the repository root). Configured when it
#                    has no CMakeCache.txt (CC=clang, -DSKETCHMM_FUZZ=ON -DSKETCHMM_BUILD_TESTS=OFF
#                    -DCMAKE_BUILD_TYPE=Debug), then `cmake --build DIR --target TARGET`.
#   --no-build       run DIR/fuzz/TARGET as it is (ctest does this)
#   --fresh          start from the committed corpus alone (empty the working corpus first)
#
# Fuzzing reads and extends the working corpus DIR/fuzz/corpus/TARGET, seeded with the committed
# tests/fuzz/corpus/TARGET (which is never written), with -max_total_time=SECONDS -rss_limit_mb=2048
# -timeout=10 (later flags after -- win). A crash, leak, timeout or out-of-memory input is saved in
# DIR/fuzz/artifacts/TARGET/; the full log is DIR/fuzz/logs/TARGET.log and its closing lines
# (runs, coverage, corpus, speed) DIR/fuzz/logs/TARGET.summary, printed at the end. A crash inside
# an upstream library (libhdf5, zlib, json-c: see upstream_crash) does not end the run: its input
# goes to DIR/fuzz/artifacts/TARGET/upstream/ and fuzzing resumes for the time left.
# --regress runs every file of tests/fuzz/corpus/TARGET and tests/fuzz/regressions/TARGET once
# (log and summary: TARGET.regress.log, TARGET.regress.summary).
# Environment: UBSAN_OPTIONS defaults to print_stacktrace=1; ASAN_SYMBOLIZER_PATH to llvm-symbolizer. Exit status: 0 when nothing was found, else the fuzzer's (or 2: usage).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
targets=(fuzz_idx fuzz_h5_matrix fuzz_ann fuzz_spec fuzz_api fuzz_tuning)

build_dir=$root/build-fuzz
do_build=1
fresh=0
regress=0
while [ $# -gt 0 ]; do
  case $1 in
    --build-dir) build_dir=$2; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --fresh) fresh=1; shift ;;
    --regress) regress=1; shift ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
  esac
done
usage() { echo "usage: bash tests/fuzz/run.sh [--build-dir DIR] [--no-build] [--fresh] [--regress] TARGET|all [SECONDS] [-- FLAGS]" >&2; exit 2; }
[ $# -ge 1 ] || usage
target=$1; shift
seconds=60
if [ $# -gt 0 ] && [ "$1" != "--" ]; then seconds=$1; shift; fi
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
extra=("$@")
case $seconds in ''|*[!0-9]*) usage ;; esac

if [ "$target" = all ]; then
  rc=0
  opts=(--build-dir "$build_dir")
  [ $do_build -eq 1 ] || opts+=(--no-build)
  [ $fresh -eq 0 ] || opts+=(--fresh)
  [ $regress -eq 0 ] || opts+=(--regress)
  for t in "${targets[@]}"; do
    bash "$0" "${opts[@]}" "$t" "$seconds" -- "${extra[@]}" || rc=1
  done
  echo "== summaries"
  suffix=.summary
  [ $regress -eq 0 ] || suffix=.regress.summary
  for t in "${targets[@]}"; do cat "$build_dir/fuzz/logs/$t$suffix" 2>/dev/null; done
  exit $rc
fi
case " ${targets[*]} " in *" $target "*) ;; *) echo "run.sh: unknown target '$target' (${targets[*]})" >&2; exit 2 ;; esac

if [ $do_build -eq 1 ]; then
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    echo "== configuring $build_dir (clang, SKETCHMM_FUZZ=ON)"
    mkdir -p "$build_dir"
    CC=${CC:-clang} cmake -S "$root" -B "$build_dir" -DSKETCHMM_FUZZ=ON -DSKETCHMM_BUILD_TESTS=OFF \
      -DCMAKE_BUILD_TYPE=Debug >"$build_dir/fuzz-configure.log" 2>&1 ||
      { cat "$build_dir/fuzz-configure.log" >&2; echo "run.sh: configure failed" >&2; exit 2; }
  fi
  cmake --build "$build_dir" --target "$target" -j "$(nproc)" >"$build_dir/fuzz-build-$target.log" 2>&1 ||
    { tail -n 40 "$build_dir/fuzz-build-$target.log" >&2; echo "run.sh: build of $target failed" >&2; exit 2; }
fi
exe=$build_dir/fuzz/$target
[ -x "$exe" ] || { echo "run.sh: $exe not built" >&2; exit 2; }

logs=$build_dir/fuzz/logs
artifacts=$build_dir/fuzz/artifacts/$target
mkdir -p "$logs" "$artifacts"
log=$logs/$target.log
summary=$logs/$target.summary
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
# Stack frames need names (upstream_crash reads them): llvm-symbolizer, from Debian's llvm-14.
for s in "${ASAN_SYMBOLIZER_PATH:-}" "$(command -v llvm-symbolizer || true)" /usr/lib/llvm-14/bin/llvm-symbolizer; do
  if [ -n "$s" ] && [ -x "$s" ]; then export ASAN_SYMBOLIZER_PATH=$s; break; fi
done
[ -n "${ASAN_SYMBOLIZER_PATH:-}" ] ||
  echo "run.sh: no llvm-symbolizer (package llvm-14): crashes inside libhdf5 cannot be told from ours" >&2
# The targets' temporary files (fuzz_common.h) in a directory of this run: a crash skips their atexit.
export TMPDIR=$build_dir/fuzz/tmp/$target
rm -rf "$TMPDIR"
mkdir -p "$TMPDIR"
trap 'rm -rf "$TMPDIR"' EXIT

# upstream_crash LOG: 0 when the report in LOG (a crash, leak, timeout or allocation failure) starts in
# a library sketchmm does not build: Debian's libhdf5 (not instrumented; its parser crashes on some
# corrupt files), zlib or json-c. The first stack frame that is neither libc, the sanitizer and
# libFuzzer runtimes nor an allocator entry decides; for leaks, every leaked allocation's.
upstream_crash() {
  awk '
    BEGIN { started = 0; blocks = 0; upstream = 0; ours = 0; decided = 0; leak = 0 }
    !started && /ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|contract violation/ {
      started = 1; leak = /LeakSanitizer/ }
    !started { next }
    /^ *#0 / { blocks++; decided = 0; if (!leak && blocks > 1) exit }
    /^ *#[0-9]+ / && !decided {
      if ($0 ~ /libc\.so|libstdc\+\+|libgcc_s|sysdeps\/|__interceptor_|__asan|__sanitizer|__lsan|fuzzer::|in (malloc|calloc|realloc|free|posix_memalign|aligned_alloc|strdup|operator new)[ (]/)
        next
      decided = 1
      if ($0 ~ /libhdf5|libz\.so|libjson-c/) upstream++; else ours++
    }
    END { exit !(upstream > 0 && ours == 0) }' "$1"
}

# --regress: every committed input once (upstream-* reproducers one by one, see upstream_crash).
if [ $regress -eq 1 ]; then
  log=$logs/$target.regress.log
  summary=$logs/$target.regress.summary
  corpus_inputs=()
  inputs=()
  upstream_inputs=()
  [ -d "$here/corpus/$target" ] &&
    while IFS= read -r f; do corpus_inputs+=("$f"); done < <(find "$here/corpus/$target" -type f ! -name '.*' | sort)
  [ -d "$here/regressions/$target" ] &&
    while IFS= read -r f; do
      case $(basename "$f") in upstream-*) upstream_inputs+=("$f") ;; *) inputs+=("$f") ;; esac
    done < <(find "$here/regressions/$target" -type f ! -name '.*' ! -name '*.md' | sort)
  total=$((${#corpus_inputs[@]} + ${#inputs[@]} + ${#upstream_inputs[@]}))
  [ $total -gt 0 ] || { echo "run.sh: no inputs for $target" >&2; exit 2; }
  rc=0
  : >"$log"
  failing=()
  one=$logs/$target.one.log
  # run_inputs FILE...: append the output to the log; on a failure print what was found
  run_inputs() {
    "$exe" -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$artifacts/" "${extra[@]}" "$@" >"$one" 2>&1
    local r=$?
    cat "$one" >>"$log"
    [ $r -eq 0 ] || grep -E 'contract violation|ERROR: |runtime error:|^SUMMARY: |^Running: ' "$one" | tail -n 6
    return $r
  }
  # the seed corpus in one process (it stops at a failing input: that one is named)
  if [ ${#corpus_inputs[@]} -gt 0 ] && ! run_inputs "${corpus_inputs[@]}"; then
    rc=1
    failing+=("$(grep '^Running: ' "$log" | tail -n 1 | cut -c10- | sed "s|^$root/||")")
  fi
  # reproducers of findings: one process each, so every one that still fails is named
  for f in "${inputs[@]}"; do
    run_inputs "$f" || { rc=1; failing+=("${f#"$root"/}"); }
  done
  # reproducers of crashes in libhdf5 & co. (named upstream-*): each alone; still crashing there is expected
  still=0
  for f in "${upstream_inputs[@]}"; do
    run_inputs "$f" >/dev/null && continue
    if upstream_crash "$one"; then still=$((still + 1)); else rc=1; failing+=("${f#"$root"/} (in sketchmm's code)"); fi
  done
  note=""
  [ ${#upstream_inputs[@]} -eq 0 ] || note=" ($still of ${#upstream_inputs[@]} upstream-* reproducers still crash in an upstream library)"
  if [ $rc -eq 0 ]; then
    echo "$target: regression: all $total committed inputs ran clean$note" | tee "$summary"
  else
    { echo "$target: regression: FAILED: ${#failing[@]} of $total input(s) fail$note; log $log"
      printf '  %s\n' "${failing[@]}"; } | tee "$summary"
  fi
  exit $rc
fi

work=$build_dir/fuzz/corpus/$target
[ $fresh -eq 0 ] || rm -rf "$work"
mkdir -p "$work" "$artifacts/upstream"
cp -n "$here/corpus/$target"/* "$work"/ 2>/dev/null
start=$(date +%s)
deadline=$((start + seconds))
: >"$log"
# Segments: a crash inside an upstream library (upstream_crash) is set aside in artifacts/TARGET/upstream/
# and fuzzing resumes from the working corpus for the time left; any other finding ends the run.
runs=0
segments=0
upstream=()
rc=0
while [ $segments -lt 100 ]; do
  left=$((deadline - $(date +%s)))
  [ $left -ge 1 ] || break
  segments=$((segments + 1))
  seg=$logs/$target.segment.log
  "$exe" "$work" -max_total_time="$left" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "${extra[@]}" 2>&1 | tee "$seg" | grep --line-buffered -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)|NEW_FUNC'
  rc=${PIPESTATUS[0]}
  cat "$seg" >>"$log"
  n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$seg" | tail -n 1)
  runs=$((runs + ${n:-0}))
  [ $rc -ne 0 ] || break
  artifact=$(sed -n 's/.*Test unit written to //p' "$seg" | tail -n 1)
  triage=$seg
  if [ -n "$artifact" ] && [ -f "$artifact" ] && grep -q 'out-of-memory (used:' "$seg"; then
    # the RSS limit has no stack: run the input again with a small malloc limit to see who allocates
    triage=$logs/$target.oom.log
    "$exe" -rss_limit_mb=2048 -malloc_limit_mb=128 "$artifact" >"$triage" 2>&1
  fi
  if [ -n "$artifact" ] && [ -f "$artifact" ] && upstream_crash "$triage"; then
    mv "$artifact" "$artifacts/upstream/"
    upstream+=("$artifacts/upstream/$(basename "$artifact")")
    echo "== $target: the crash above is inside an upstream library (saved in $artifacts/upstream/); fuzzing on"
    rc=0
    continue
  fi
  break
done
elapsed=$(( $(date +%s) - start ))

# The closing lines of the last segment: "#N DONE cov: C ft: F corp: ..." (or the last status line
# before a finding), "Done N runs in T second(s)" and the stat:: lines of -print_final_stats.
status_line=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$seg" | tail -n 1)
done_line=$(grep -E '^Done [0-9]+ runs' "$seg" | tail -n 1)
speed=$(( runs / (elapsed > 0 ? elapsed : 1) ))
new=$(sed -n 's/^stat::new_units_added: *//p' "$log" | awk '{ s += $1 } END { print s + 0 }')
rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | sort -n | tail -n 1)
cov=$(sed -nE 's/^#[0-9]+.*cov: ([0-9]+) ft: ([0-9]+) corp: ([0-9]+)\/([0-9]+[a-zA-Z]*).*/cov \1, ft \2, corpus \3 inputs (\4)/p' <<<"$status_line")
if [ $rc -eq 0 ]; then
  verdict="nothing found in sketchmm"
else
  found=$(grep -E 'Test unit written to|SUMMARY: |contract violation' "$seg" | head -n 3 | tr '\n' ' ')
  verdict="FOUND (exit $rc): $found-- save the input as tests/fuzz/regressions/$target/<what-it-shows> and report it"
fi
{
  echo "$target: $runs runs in ${elapsed} s ($speed exec/s), ${cov:-no coverage line}, $new new inputs, peak RSS ${rss:-?} MB: $verdict"
  [ ${#upstream[@]} -eq 0 ] || echo "  ${#upstream[@]} crash(es) inside upstream libraries (libhdf5, zlib, json-c), not failures: ${upstream[*]}"
  [ $segments -le 1 ] || echo "  $segments fuzzer runs (restarted after each upstream crash)"
  [ -n "$status_line" ] && echo "  last: $status_line"
  [ -n "$done_line" ] && echo "  $done_line"
} | tee "$summary"
exit $rc
