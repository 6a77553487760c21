"""The one place warning and language flags live. Every C and C++ target uses these lists."""

# C11 for the loader, mocks, ldp-check and fuzz targets.
C_COPTS = [
    "-std=c11",
    "-D_GNU_SOURCE",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unused-parameter",
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
