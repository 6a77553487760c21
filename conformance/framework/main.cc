// main() of every conformance test: consumes --loader=PATH, then runs googletest.
#include <cstdio>

#include "conformance/framework/sandbox.h"
#include "gtest/gtest.h"

int main(int argc, char** argv) {
  vkt::SetLoaderFromArgs(&argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  std::printf("[   VKT    ] loader under test: %s (%s)\n", vkt::LoaderPath().c_str(), vkt::LoaderName().c_str());
  std::string reason;
  if (!vkt::IsolationAvailable(&reason)) std::printf("[   VKT    ] no private mount namespace: %s\n", reason.c_str());
  return RUN_ALL_TESTS();
}
