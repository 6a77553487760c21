// The target tools/report/remote_cache_check.sh builds and tests twice from two clean output bases:
// one compile, one link, one test run, each of which must come from the remote cache the second
// time. It checks something real so that a cached result means a passing test.
#include <stdio.h>
#include <string.h>

static unsigned checksum(const char* s) {
  unsigned h = 2166136261u;  // FNV-1a
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

int main(void) {
  const char* text = "vk-loader-harness remote cache";
  unsigned h = checksum(text);
  if (strlen(text) != 30 || h != checksum("vk-loader-harness remote cache") || h == checksum("")) {
    printf("remote-cache-probe: FAIL\n");
    return 1;
  }
  printf("remote-cache-probe: ok %08x\n", h);
  return 0;
}
