#!/usr/bin/env bash
# The library window under stress (RULE_ADVERSARIAL_INPUT; docs/performance.md, round twelve): a
# driver manifest names lib.so; a flipper renames a fresh copy of a driver library and a FIFO over
# lib.so in turn, every 50 us (a new inode each time, so every acquisition loads the library
# again); one process loops vkCreateInstance + vkEnumeratePhysicalDevices + vkDestroyInstance for
# SECONDS through each loader. A loader whose dlopen can block on the FIFO stops returning: the
# run is killed after SECONDS + 40 s and reported as blocked.
#
#   bench/library_window.sh [--seconds=60] [--driver=LIB.so] --loader=NAME=PATH...
# Default driver: bazel-bin/mock_icd/libmock_icd_v7_exports.so. Needs cc and the Vulkan headers.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
secs=60
driver=$top/bazel-bin/mock_icd/libmock_icd_v7_exports.so
declare -a names=() paths=()
for a in "$@"; do
  case "$a" in
    --seconds=*) secs=${a#*=} ;;
    --driver=*) driver=${a#*=} ;;
    --loader=*=*) v=${a#--loader=}; names+=("${v%%=*}"); paths+=("${v#*=}") ;;
    *) sed -n '2,10p' "$0" >&2; exit 2 ;;
  esac
done
[ ${#names[@]} -gt 0 ] || { sed -n '2,10p' "$0" >&2; exit 2; }
[ -f "$driver" ] || { echo "library_window: no driver library $driver (bazel build //mock_icd:all)" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/vkl-libwindow.XXXXXX")
trap 'rm -rf "$T"' EXIT

cat > "$T/flip.c" <<'C'
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static volatile sig_atomic_t stop;
static void on_term(int s) { (void)s; stop = 1; }
/* flip PATH SOURCE FIFO: a hard link of FIFO, then a fresh copy of SOURCE, renamed over PATH. */
int main(int argc, char **argv) {
  if (argc != 4) return 2;
  char tmp[4096];
  snprintf(tmp, sizeof(tmp), "%s.flip", argv[1]);
  static char buf[64 << 20];
  int fd = open(argv[2], O_RDONLY);
  ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
  if (n <= 0) return 1;
  close(fd);
  signal(SIGTERM, on_term);
  unsigned long flips = 0;
  for (int last = 0; !last; last = stop) {
    unlink(tmp);
    if (!stop && link(argv[3], tmp) == 0 && rename(tmp, argv[1]) == 0) flips++;
    usleep(50);
    int o = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    if (o >= 0 && write(o, buf, (size_t)n) == n && close(o) == 0) rename(tmp, argv[1]);
    usleep(50);
  }
  printf("%lu\n", flips);
  return 0;
}
C
cat > "$T/loop.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <vulkan/vulkan.h>
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
/* loop LOADER SECONDS: instances until SECONDS have passed; prints calls, with-driver, slowest. */
int main(int argc, char **argv) {
  if (argc != 3) return 2;
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) return 1;
  PFN_vkCreateInstance create = (PFN_vkCreateInstance)dlsym(h, "vkCreateInstance");
  PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)dlsym(h, "vkDestroyInstance");
  PFN_vkEnumeratePhysicalDevices devices = (PFN_vkEnumeratePhysicalDevices)dlsym(h, "vkEnumeratePhysicalDevices");
  VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  double start = now(), worst = 0, secs = atof(argv[2]);
  unsigned long calls = 0, with_driver = 0;
  while (now() - start < secs) {
    double a = now();
    VkInstance inst;
    if (create(&info, NULL, &inst) == VK_SUCCESS) {
      uint32_t c = 0;
      devices(inst, &c, NULL);
      if (c > 0) with_driver++;
      destroy(inst, NULL);
    }
    if (now() - a > worst) worst = now() - a;
    calls++;
  }
  printf("%lu %lu %.3f\n", calls, with_driver, worst);
  return 0;
}
C
cc -O2 -Wall -o "$T/flip" "$T/flip.c"
cc -O2 -Wall -o "$T/loop" "$T/loop.c" -ldl
cp "$driver" "$T/src.so"
mkfifo "$T/fifo"
printf '{"file_format_version":"1.0.0","ICD":{"library_path":"%s","api_version":"1.3.0"}}\n' "$T/lib.so" > "$T/icd.json"
echo "| loader | instances in ${secs} s | with the driver | slowest call | loads interrupted (log lines) | FIFO renames |"
echo "|---|---:|---:|---:|---:|---:|"
for i in "${!names[@]}"; do
  cp "$T/src.so" "$T/lib.so"
  "$T/flip" "$T/lib.so" "$T/src.so" "$T/fifo" > "$T/flips" &
  fp=$!
  rc=0
  VK_DRIVER_FILES=$T/icd.json VK_LOADER_DEBUG=error timeout $((secs + 40)) "$T/loop" "${paths[$i]}" "$secs" \
    > "$T/out" 2> "$T/err" || rc=$?
  kill -TERM "$fp"; wait "$fp" || true
  interrupted=$(grep -c 'was interrupted' "$T/err" || true)
  if [ "$rc" -eq 0 ]; then
    read -r calls with worst < "$T/out"
    echo "| ${names[$i]} | $calls | $with | $worst s | $interrupted | $(cat "$T/flips") |"
  else
    echo "| ${names[$i]} | blocked (killed after $((secs + 40)) s, status $rc) | | | $interrupted | $(cat "$T/flips") |"
  fi
done
