#!/usr/bin/env bash
# Smoke run of //bench (few iterations, two scenarios, both default loaders). No timing assertions:
# it fails only when a measurement cannot run or the table is not written.
set -euo pipefail
out="${TEST_TMPDIR:-/tmp}/bench-smoke"
bench="${RUNFILES_DIR:-$PWD/..}/vk_loader_harness/bench/bench"
[ -x "$bench" ] || bench="bench/bench"
"$bench" --smoke --out="$out"
test -s "$out/table.md"
grep -q "vkCreateInstance + vkDestroyInstance" "$out/table.md"
grep -q "vkCmdDraw: exported trampoline" "$out/table.md"
# The loader-free start-up floor: instructions under callgrind ("| 34.5k |"), and its one cold wall
# time ("| 66.3k (66.3k–66.3k) |"; the only figure under AddressSanitizer, which runs no callgrind).
floor=$(grep -E "^\| 1 driver \| loader-free floor: start-up \(cold process; " "$out/table.md")
echo "$floor" | grep -E -q "\| [0-9.]+[kM]? (\||\()"
echo "bench smoke: ok"
