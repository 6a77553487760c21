#!/usr/bin/env bash
# Builds a self-contained fuzzing campaign bundle for a machine with nothing but a base glibc system
# (no clang, no AFL++, no Python): every libFuzzer target (clang-14, ASan + UBSan) and the AFL++
# build of loader_world_fuzzer, with the mock drivers and layers they dlopen(), our loader and
# Debian's Khronos libvulkan.so.1 for loader_diff_fuzzer (vkl_libvulkan/, vkl_khronos/), the seed corpora
# (unpacked), the dictionaries, afl-fuzz, every shared library any of them needs beyond glibc, and
# fuzz/tools/campaign.sh. Reuses fuzz/oss-fuzz/build.sh for both builds (docs/fuzzing.md).
#
#   fuzz/tools/make_campaign_bundle.sh OUT_DIR        # OUT_DIR: git-ignored, e.g. fuzz_bundle/
#
# On the remote machine, from anywhere:
#   OUT=/results bash OUT_DIR/run.sh SECONDS
# runs campaign.sh for SECONDS (libFuzzer fork mode on every target, AFL++ -M/-S on the whole-loader
# targets) and writes $OUT/summary.tsv (exec/s, cov, ft, corpus size, crashes per target),
# $OUT/afl_summary.txt, $OUT/crashes_<target>/, $OUT/corpora.tar.gz and the logs. A second run
# continues from the grown corpora: VKL_CORPUS_IN=/path/to/corpora.tar.gz (or an unpacked
# directory with <target>/ subdirectories).
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$1"
dest=$(cd "$1" && pwd)
case "$dest" in "$root"|/) echo "refusing OUT_DIR $dest" >&2; exit 2 ;; esac
for tool in clang-14 clang++-14 afl-clang-fast afl-clang-fast++ afl-fuzz python3; do
  command -v "$tool" >/dev/null || { echo "$0: $tool missing (ci/bootstrap)" >&2; exit 1; }
done
cjson_src=$("$root/fuzz/fetch_cjson_src.sh")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vkl-bundle.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
rm -rf "${dest:?}"/*

build() {  # build OUTSUBDIR  (CC, CXX, CFLAGS, ... in the environment)
  mkdir -p "$tmp/src" "$tmp/work_$1" "$dest/$1"
  [ -e "$tmp/src/vk-loader-harness" ] || ln -s "$root" "$tmp/src/vk-loader-harness"
  SRC=$tmp/src WORK=$tmp/work_$1 OUT=$dest/$1 CJSON_SRC=$cjson_src bash "$root/fuzz/oss-fuzz/build.sh" \
    > "$tmp/build_$1.log" 2>&1 || { tail -40 "$tmp/build_$1.log"; echo "$0: build $1 failed" >&2; exit 1; }
  tail -1 "$tmp/build_$1.log"
}

# 1. libFuzzer, ASan + UBSan (OSS-Fuzz's flags, -gline-tables-only keeps the binaries small).
ubsan="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
CC=clang-14 CXX=clang++-14 \
  CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only $ubsan" \
  CXXFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only $ubsan -fno-sanitize=vptr" \
  LIB_FUZZING_ENGINE=-fsanitize=fuzzer build libfuzzer

# 2. AFL++ (afl-clang-fast, ASan + UBSan) of the whole-loader targets, the differential one
# included (its children write their edges into AFL++'s shared map directly); mocks uninstrumented.
AFL_QUIET=1 CC=afl-clang-fast CXX=afl-clang-fast++ MOCK_CC=clang-14 \
  CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address,undefined -fno-sanitize-recover=undefined" \
  CXXFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address,undefined -fno-sanitize-recover=undefined" \
  LIB_FUZZING_ENGINE=/usr/lib/afl/libAFLDriver.a \
  VKL_FUZZ_TARGETS="loader_world_fuzzer layer_chain_fuzzer loader_diff_fuzzer" build afl

# 3. Seed corpora unpacked (the remote has no Python to read the zips), dictionaries next to them.
for d in libfuzzer afl; do
  for z in "$dest/$d"/*_seed_corpus.zip; do
    [ -f "$z" ] || continue
    t=$(basename "$z" _seed_corpus.zip)
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$z" "$dest/$d/${t}_seed_corpus"
    rm -f "$z"
  done
done

# The AFL++ build's mocks and seeds duplicate the libFuzzer build's (the mocks are built by clang-14
# with the same sanitizer flags in both): keep one copy (< 60 MiB in all); run.sh points
# VKL_FUZZ_MOCK_DIR at it and campaign.sh takes the seeds from the libFuzzer directory. The mocks
# lose their debug info (symbols stay): they are most of the bundle.
rm -rf "$dest/afl/vkl_mock_icd" "$dest/afl/vkl_mock_layer" "$dest/afl/loader_world_fuzzer_seed_corpus" \
  "$dest/afl/layer_chain_fuzzer_seed_corpus" "$dest/afl/loader_diff_fuzzer_seed_corpus"
strip --strip-debug "$dest"/libfuzzer/vkl_mock_icd/*.so "$dest"/libfuzzer/vkl_mock_layer/*.so

# 4. afl-fuzz and the campaign script.
mkdir -p "$dest/bin" "$dest/lib"
cp "$(command -v afl-fuzz)" "$dest/bin/afl-fuzz"
cp "$root/fuzz/tools/campaign.sh" "$dest/campaign.sh"

# 5. Shared libraries beyond glibc that any binary or mock needs (ldd on this machine).
glibc='^(linux-vdso|libc|libm|libdl|libpthread|librt|libresolv|libutil|ld-linux-x86-64)\.so'
find "$dest" -type f \( -perm -u+x -o -name '*.so' \) -print0 | while IFS= read -r -d '' f; do
  [ "$(head -c 4 "$f" | tail -c 3)" = ELF ] || continue
  ldd "$f" 2>/dev/null | awk '/=> \//{print $1, $3}'
done | sort -u | while read -r name path; do
  [[ "$name" =~ $glibc ]] && continue
  cp -L "$path" "$dest/lib/$name"
done
# a second pass for what those libraries pull in
for f in "$dest"/lib/*; do
  [ -e "$f" ] || continue
  ldd "$f" 2>/dev/null | awk '/=> \//{print $1, $3}'
done | sort -u | while read -r name path; do
  [[ "$name" =~ $glibc ]] && continue
  [ -e "$dest/lib/$name" ] || cp -L "$path" "$dest/lib/$name"
done

# 5b. loader_diff_fuzzer compares our loader with Debian's Khronos loader: build.sh put both beside
# it (vkl_libvulkan/, vkl_khronos/: the remote has no Debian packages) with the deviations table.
for f in vkl_libvulkan/libvulkan.so.1 vkl_khronos/libvulkan.so.1 vkl_deviations/khronos.tsv; do
  [ -f "$dest/libfuzzer/$f" ] || { echo "$0: $f missing from the libFuzzer build" >&2; exit 1; }
done

# 6. run.sh: the wrapper the lead runs remotely.
cat > "$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
# OUT=RESULT_DIR bash run.sh SECONDS   (made by fuzz/tools/make_campaign_bundle.sh)
# Environment: VKL_CORPUS_IN (a corpora.tar.gz of an earlier run, or a directory with <target>/),
# VKL_AFL_JOBS (default 2), VKL_JOBS_<target> (libFuzzer workers; default: nproc spread by campaign.sh),
# VKL_TARGETS (libFuzzer targets; e.g. VKL_TARGETS=loader_diff_fuzzer VKL_JOBS_loader_diff_fuzzer=16 VKL_AFL_JOBS=0).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
secs=${1:?usage: OUT=DIR run.sh SECONDS}
out=${OUT:?set OUT to the results directory}
mkdir -p "$out"
# the world fuzzer writes a world per input: a tmpfs is 10-20x faster than a disk
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then export TMPDIR=/dev/shm; fi
export LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$here/bin:$PATH
# both loader_world_fuzzer builds use the one copy of the mocks (the layers are found beside it)
export VKL_FUZZ_MOCK_DIR=$here/libfuzzer/vkl_mock_icd
unset VKL_FUZZ_MOCK_LAYER_DIR
export VKL_AFL_DIR=$here/afl VKL_AFL_FUZZ=$here/bin/afl-fuzz
if [ -n "${VKL_CORPUS_IN:-}" ] && [ -f "$VKL_CORPUS_IN" ]; then
  cin=$(mktemp -d "${TMPDIR:-/tmp}/vkl-corpus-in.XXXXXX")
  tar -C "$cin" -xzf "$VKL_CORPUS_IN"
  export VKL_CORPUS_IN=$cin/corpus
fi
{
  echo "bundle: $here"; echo "machine: $(uname -a)"; echo "cores: $(nproc)"; echo "seconds: $secs"
  echo "start: $(date -u +%FT%TZ)"
} > "$out/run_info.txt"
bash "$here/campaign.sh" "$here/libfuzzer" "$out" "$secs"
rc=$?
echo "end: $(date -u +%FT%TZ)" >> "$out/run_info.txt"
exit $rc
RUN
chmod +x "$dest/run.sh" "$dest/campaign.sh"
echo "bundle: $dest ($(du -sh "$dest" | cut -f1)); run: OUT=DIR bash $dest/run.sh SECONDS"
