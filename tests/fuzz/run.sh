#!/usr/bin/env bash
# Builds the libFuzzer harnesses (build/fuzz, the `fuzz` preset) if needed and runs each for
# SECONDS, then prints per harness the executions reached and whether anything was found.
#   tests/fuzz/run.sh SECONDS [HARNESS...]     harnesses: load rules inputs journal wire (default: all)
#   GRAFT_FUZZ_PARALLEL=2 tests/fuzz/run.sh …  runs two harnesses at a time (default 1)
# Each harness's growing corpus is build/fuzz/corpus/<harness> (seeded from tests/fuzz/corpus and,
# for rules, resources/rules); logs (log.N) and crashing inputs go to build/fuzz/out/<harness>/.
# Exit status 1 when any harness found a crash, a leak, an out-of-memory or a sanitizer report.
# Not part of CI.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
seconds=${1:?usage: tests/fuzz/run.sh SECONDS [HARNESS...]}
shift
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(load rules inputs journal wire)
parallel=${GRAFT_FUZZ_PARALLEL:-1}
build=$root/build/fuzz

cd "$root"
if ! command -v clang++ >/dev/null; then
  echo "the fuzzers need Debian's clang: sudo apt-get install clang libclang-rt-14-dev" >&2
  exit 2
fi
if [ ! -f "$build/build.ninja" ]; then cmake --preset fuzz >/dev/null || exit 2; fi
cmake --build "$build" -j2 >/dev/null || { echo "fuzz build failed: cmake --build $build" >&2; exit 2; }
[ -d "$here/corpus/journal" ] || "$here/make_corpus.sh" || exit 2

export ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1:handle_abort=1
export LSAN_OPTIONS=suppressions=$here/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# Runs harness $1 until SECONDS have passed: after a finding libFuzzer stops, so it is started
# again on the grown corpus (one log per start). Executions are summed over the starts.
run_one() {
  local h=$1 out=$build/out/$1 corpus=$build/corpus/$1 start=$SECONDS part=0
  local seeds=("$here/corpus/$h")
  [ "$h" = rules ] && seeds=("$root/resources/rules" "$here/corpus/rules")
  rm -rf "$out"
  mkdir -p "$out" "$corpus"
  while :; do
    local left=$((seconds - (SECONDS - start)))
    [ "$left" -ge 5 ] || break
    part=$((part + 1))
    "$build/tests/fuzz/fuzz_$h" -max_total_time="$left" -timeout=30 -rss_limit_mb=4096 -malloc_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$out/" "$corpus" "${seeds[@]}" >"$out/log.$part" 2>&1
    [ $? -ne 0 ] || break
  done
}

for ((i = 0; i < ${#harnesses[@]}; i += parallel)); do
  for h in "${harnesses[@]:i:parallel}"; do run_one "$h" & done
  wait
done

status=0
for h in "${harnesses[@]}"; do
  out=$build/out/$h
  execs=0
  for log in "$out"/log.*; do
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    [ -n "$n" ] || n=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
    execs=$((execs + ${n:-0}))
  done
  # A finding per log part: its SUMMARY line (or libFuzzer's), counted.
  findings=$(for log in "$out"/log.*; do
    grep -h -m1 -E '^SUMMARY: |ERROR: libFuzzer|fuzz_[a-z]*: ruleText' "$log" | sed 's/ (BuildId: [0-9a-f]*)//g; s/ (used: .*//; s/malloc([0-9]*)/malloc(N)/'
  done | sort | uniq -c)
  inputs=$(find "$out" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  if [ -z "$findings" ] && [ "$inputs" -eq 0 ]; then
    printf '%-8s %10s executions  clean (no crash, leak or sanitizer report)\n' "$h" "$execs"
  else
    status=1
    printf '%-8s %10s executions  FOUND %s input(s) in %s:\n%s\n' "$h" "$execs" "$inputs" "$out" "$findings"
  fi
done
exit $status
