"""The one place warning and language flags live. Every C and C++ target uses these lists."""

# C11 for the loader, mocks, ldp-check and fuzz targets.
# -O2: what we ship is measured (docs/performance.md); Bazel's default fastbuild is -O0. Target
# copts come after --copt, so this also wins over the -O1 of the asan/fuzz configs (sanitizers
# work at -O2; -fno-omit-frame-pointer from those configs still applies).
C_COPTS = [
    "-std=c11",
    "-O2",
    "-D_GNU_SOURCE",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unused-parameter",
    "-Wmissing-prototypes",
    "-Wshadow",
    "-Wstrict-prototypes",
    "-fvisibility=hidden",
]

# C++17 with googletest for tests.
CXX_COPTS = [
    "-std=c++17",
    "-D_GNU_SOURCE",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unused-parameter",
]
