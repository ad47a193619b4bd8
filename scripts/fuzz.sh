#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer harnesses in Fuzz/ with coverage and AddressSanitizer, seeds each from the
# samples, fixtures and ../shared/aasa-corpus/, runs each for FUZZ_SECONDS, and prints executions per second and
# coverage. Exits 1 when any harness found a crash, a leak, a timeout or an out-of-memory input; the inputs are
# left in Fuzz/.build/findings/ for `make fuzz-min` and a regression test under Tests/Fixtures/fuzz/.
#
#   FUZZ_SECONDS=60     time per harness
#   FUZZ_TARGETS="FuzzAASA FuzzMatch"   a subset (default: every harness)
#   FUZZ_JOBS=1         harnesses run at once (each still gets FUZZ_SECONDS)
#   FUZZ_COVERAGE=1     replay each final corpus with -print_coverage=1 for the coverage column (~40 s each)
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_EACH=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-1}
ALL="FuzzZip FuzzInspect FuzzPlist FuzzMachO FuzzCodeSignature FuzzDER FuzzCMS FuzzAASA FuzzMatch FuzzEntitlementStrings"
TARGETS=${FUZZ_TARGETS:-$ALL}
WORK=Fuzz/.build
# SwiftPM's `--sanitize=fuzzer --sanitize=address` gives swiftc two flags, and the last wins: no coverage. One
# combined flag instruments both; `--sanitize=fuzzer` stays so SwiftPM links libFuzzer's main.
FLAGS=(--package-path Fuzz --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address)

echo "== building harnesses (debug, -sanitize=fuzzer,address)"
quiet() { grep -vE '^\[[0-9]+/[0-9]+\]|ld.gold: warning|^warning: .swift-distributed-tracing|CMakeLists.txt$' || true; }
if [ "$TARGETS" = "$ALL" ]; then
  # All of them in one build: planned once, and their links overlap (a build per harness plans ten times).
  swift build "${FLAGS[@]}" 2>&1 | quiet || true
else
  for target in $TARGETS; do swift build "${FLAGS[@]}" --product "$target" 2>&1 | quiet || true; done
fi
for target in $TARGETS; do
  [ -x "$WORK/debug/$target" ] || { echo "error: $target did not build"; exit 2; }
done

rm -rf "$WORK/seeds" "$WORK/logs"
mkdir -p "$WORK/corpus" "$WORK/findings" "$WORK/logs"
python3 scripts/fuzz-seeds.py "$WORK/seeds" >/dev/null

# Largest input per harness: whole small IPAs for the archive harnesses, a screenful for the string ones.
max_len() {
  case $1 in
    FuzzZip | FuzzInspect | FuzzMachO) echo 262144 ;;
    FuzzCMS | FuzzAASA | FuzzCodeSignature) echo 65536 ;;
    FuzzPlist) echo 16384 ;;
    *) echo 4096 ;;
  esac
}

run_one() {
  local target=$1
  mkdir -p "$WORK/corpus/$target"
  local dict=()
  [ -f "Fuzz/dicts/$target.dict" ] && dict=(-dict="Fuzz/dicts/$target.dict")
  # The Swift runtime's own crash reporter would stall each crash for seconds; libFuzzer reports them itself.
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
    "$WORK/debug/$target" "$WORK/corpus/$target" "$WORK/seeds/$target" "${dict[@]}" \
    -max_total_time="$SECONDS_EACH" -max_len="$(max_len "$target")" -timeout=10 -rss_limit_mb=2048 \
    -malloc_limit_mb=1024 -print_final_stats=1 -artifact_prefix="$WORK/findings/$target-" \
    >"$WORK/logs/$target.log" 2>&1 || true
}

echo "== fuzzing each harness for ${SECONDS_EACH}s ($JOBS at a time)"
running=0
for target in $TARGETS; do
  run_one "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then wait -n || true; running=$((running - 1)); fi
done
wait

[ "${FUZZ_COVERAGE:-1}" = 1 ] && echo "== measuring coverage of each harness's final corpus"
for target in $TARGETS; do
  [ "${FUZZ_COVERAGE:-1}" = 1 ] || break
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$WORK/debug/$target" "$WORK/corpus/$target" -runs=0 \
    -max_len="$(max_len "$target")" -print_coverage=1 >"$WORK/logs/$target.coverage" 2>&1 || true
done
python3 scripts/fuzz-report.py "$WORK" $TARGETS
