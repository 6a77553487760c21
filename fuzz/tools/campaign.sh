#!/usr/bin/env bash
# A parallel fuzzing campaign over the binaries fuzz/oss-fuzz/build.sh produced: every target with
# libFuzzer's fork mode (crashes are saved, the run goes on), plus AFL++ -M/-S instances on each
# whole-loader target (loader_world_fuzzer, layer_chain_fuzzer, loader_diff_fuzzer) of an AFL++ build, when one and
# afl-fuzz are given. Writes per-target logs, final
# figures (summary.tsv), crash artifacts and the grown corpora (corpora.tar.gz) into RESULTS.
#
#   fuzz/tools/campaign.sh BIN_DIR RESULTS SECONDS
# Environment:
#   VKL_JOBS_<target>   libFuzzer workers per target (defaults spread nproc over the targets,
#                       the whole-loader targets loader_world_fuzzer and layer_chain_fuzzer
#                       getting the most)
#   VKL_AFL_DIR         directory with an AFL++ build of the whole-loader targets (+ vkl_mock_icd/)
#   VKL_AFL_FUZZ        the afl-fuzz binary (default: afl-fuzz on PATH)
#   VKL_AFL_JOBS        AFL++ instances per whole-loader target in VKL_AFL_DIR (default 2: -M main, -S s1..)
#   VKL_AFL_TARGETS     which of them (default: loader_world_fuzzer layer_chain_fuzzer loader_diff_fuzzer)
#   VKL_CORPUS_IN       directory with <target>/ corpora to start from (default: the seed zips)
#   VKL_TARGETS         the libFuzzer targets to run (default: all below), e.g. VKL_TARGETS=loader_diff_fuzzer
#                       VKL_JOBS_loader_diff_fuzzer=16 VKL_AFL_JOBS=0 for a differential-only campaign
#                       (loader_diff_fuzzer: our loader against the bundled Khronos loader, vkl_khronos/)
set -uo pipefail
bin=$1 results=$2 secs=$3
mkdir -p "$results"
work=$(mktemp -d "${TMPDIR:-/tmp}/vkl-campaign.XXXXXX")
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"
cores=$(nproc)
targets=${VKL_TARGETS:-"loader_world_fuzzer layer_chain_fuzzer loader_diff_fuzzer json_fuzzer icd_manifest_fuzzer layer_manifest_fuzzer filter_fuzzer path_list_fuzzer settings_fuzzer util_fuzzer ldp_check_fuzzer ldp_package_fuzzer"}
afl_targets=()
if [ -n "${VKL_AFL_DIR:-}" ]; then
  for t in ${VKL_AFL_TARGETS:-loader_world_fuzzer layer_chain_fuzzer loader_diff_fuzzer}; do
    [ -x "$VKL_AFL_DIR/$t" ] && afl_targets+=("$t")
  done
fi
afl_per=${VKL_AFL_JOBS:-2}
[ "$afl_per" -eq 0 ] && afl_targets=()
afl_jobs=$((${#afl_targets[@]} * afl_per))
rest=$((cores - afl_jobs))
[ $rest -lt 6 ] && rest=6
# a fifth of the rest to each whole-loader target (slow: a world on disk per input; the
# differential one runs two forked loaders per input), the nine parser and checker targets share
# the remainder
world=$((rest / 5)); [ $world -lt 1 ] && world=1
each=$(((rest - 3 * world) / 9)); [ $each -lt 1 ] && each=1
echo "campaign: $cores cores, ${secs}s; default libFuzzer workers: whole-loader targets x$world, parsers x$each; AFL++ x$afl_per on ${afl_targets[*]:-nothing}"

# seeds BIN_DIR TARGET DEST: the seed corpus, from the directory <target>_seed_corpus/ when there
# is one (fuzz/tools/make_campaign_bundle.sh unpacks them: no Python on the remote), else the zip.
seeds() {
  if [ -d "$1/${2}_seed_corpus" ]; then cp -r "$1/${2}_seed_corpus/." "$3/"
  else python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
    "$1/${2}_seed_corpus.zip" "$3"; fi
}

pids=()
for t in $targets; do
  [ -x "$bin/$t" ] || continue
  var=VKL_JOBS_$t
  jobs=${!var:-}
  [ -z "$jobs" ] && { case $t in loader_world_fuzzer|layer_chain_fuzzer|loader_diff_fuzzer) jobs=$world ;; *) jobs=$each ;; esac; }
  corpus=$work/corpus/$t
  mkdir -p "$corpus" "$results/crashes_$t"
  if [ -n "${VKL_CORPUS_IN:-}" ] && [ -d "$VKL_CORPUS_IN/$t" ]; then cp "$VKL_CORPUS_IN/$t"/* "$corpus"/ 2>/dev/null; fi
  seeds "$bin" "$t" "$corpus"
  dict=()
  [ -f "$bin/$t.dict" ] && dict=(-dict="$bin/$t.dict")
  # The target's -timeout from $bin/<target>.options (build.sh copies fuzz/options/); 30 s without.
  tmo=$(sed -n 's/^timeout *= *\([0-9][0-9]*\).*/\1/p' "$bin/$t.options" 2>/dev/null | head -1)
  echo "$jobs" > "$results/jobs_$t"
  echo "campaign: $t: $jobs libFuzzer worker(s)"
  (cd "$work" && ASAN_OPTIONS=detect_leaks=1 "$bin/$t" "${dict[@]}" -fork="$jobs" -ignore_crashes=1 \
      -ignore_ooms=1 -ignore_timeouts=1 -max_total_time="$secs" -timeout="${tmo:-30}" -rss_limit_mb=3072 \
      -artifact_prefix="$results/crashes_$t/" "$corpus" > "$results/$t.log" 2>&1) &
  pids+=($!)
done

if [ "$afl_jobs" -gt 0 ]; then
  afl=${VKL_AFL_FUZZ:-afl-fuzz}
  export AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1
  for t in "${afl_targets[@]}"; do
    ain=$work/afl_in_$t
    mkdir -p "$ain"
    if [ -e "$VKL_AFL_DIR/${t}_seed_corpus.zip" ] || [ -d "$VKL_AFL_DIR/${t}_seed_corpus" ]
    then seeds "$VKL_AFL_DIR" "$t" "$ain"
    else seeds "$bin" "$t" "$ain"; fi
    # loader_world_fuzzer keeps the results directory of earlier campaigns (results/afl)
    aout=$results/afl; [ "$t" != loader_world_fuzzer ] && aout=$results/afl_$t
    dict=$VKL_AFL_DIR/$t.dict; [ -f "$dict" ] || dict=$bin/$t.dict
    for i in $(seq 0 $((afl_per - 1))); do
      role=-S; name=s$i
      [ "$i" -eq 0 ] && { role=-M; name=main; }
      (cd "$work" && ASAN_OPTIONS=abort_on_error=1:symbolize=0:detect_leaks=0 \
          timeout $((secs + 60)) "$afl" -i "$ain" -o "$aout" $role $name -V "$secs" \
          -x "$dict" -- "$VKL_AFL_DIR/$t" > "$aout.$name.log" 2>&1) &
      pids+=($!)
    done
  done
fi
wait "${pids[@]}"

# the grown corpora first: the final passes below take a while on the whole-loader targets, and a
# caller's time limit that cuts them short should not cost the corpora
tar -C "$work" -czf "$results/corpora.tar.gz" corpus

# figures: executions and speed from the last fork-mode status line; coverage measured the usual
# way, by one plain pass over the final corpus (the INITED line: cov = PCs, ft = features)
printf 'target\tworkers\tseconds\texecs\texec_per_s_total\tcov\tft\tcorpus_files\tcorpus_bytes\tcrashes\n' \
  > "$results/summary.tsv"
for t in $targets; do
  [ -f "$results/$t.log" ] || continue
  line=$(grep -E '^#[0-9]+: cov: ' "$results/$t.log" | tail -1)
  execs=$(echo "$line" | sed -nE 's/^#([0-9]+):.*/\1/p')
  elapsed=$(echo "$line" | sed -nE 's/.* time: ([0-9]+)s.*/\1/p')
  speed=?
  [ -n "$execs" ] && [ -n "$elapsed" ] && [ "$elapsed" -gt 0 ] && speed=$((execs / elapsed))
  (cd "$work" && "$bin/$t" -runs=0 "$work/corpus/$t" > "$results/${t}_final_pass.log" 2>&1)
  init=$(grep -E 'INITED' "$results/${t}_final_pass.log" | tail -1)
  cov=$(echo "$init" | sed -nE 's/.* cov: ([0-9]+).*/\1/p')
  ft=$(echo "$init" | sed -nE 's/.* ft: ([0-9]+).*/\1/p')
  corp=$(ls "$work/corpus/$t" | wc -l)
  bytes=$(du -sb "$work/corpus/$t" | cut -f1)
  crashes=$(ls "$results/crashes_$t" | wc -l)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$(cat "$results/jobs_$t")" "$secs" \
    "${execs:-?}" "$speed" "${cov:-?}" "${ft:-?}" "$corp" "$bytes" "$crashes" >> "$results/summary.tsv"
done
if [ "$afl_jobs" -gt 0 ]; then
  for s in "$results"/afl/*/fuzzer_stats "$results"/afl_*/*/fuzzer_stats; do
    [ -f "$s" ] || continue
    echo "== $s"; grep -E 'execs_done|execs_per_sec|corpus_count|edges_found|total_edges|bitmap_cvg|saved_crashes|saved_hangs' "$s"
  done > "$results/afl_summary.txt"
  rm -rf "$results"/afl/*/.cur_input "$results"/afl/*/.synced "$results"/afl_*/*/.cur_input "$results"/afl_*/*/.synced
fi
rm -rf "$work"
cat "$results/summary.tsv"
[ -f "$results/afl_summary.txt" ] && cat "$results/afl_summary.txt"
exit 0
