// vkt::RunProcess: status, both streams, environment, working directory, signals and the time limit.
#include "conformance/framework/process.h"

#include <unistd.h>

#include "gtest/gtest.h"

namespace {

const char kSh[] = "/bin/sh";

TEST(RunProcess, ExitStatusAndBothStreams) {
  vkt::ProcessResult r = vkt::RunProcess({kSh, "-c", "echo to-out; echo to-err >&2; exit 3"});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.out, "to-out\n");
  EXPECT_EQ(r.err, "to-err\n");
  EXPECT_FALSE(r.timed_out);
}

TEST(RunProcess, EnvironmentIsAddedAndWorkingDirectorySet) {
  vkt::ProcessOptions o;
  o.env["VKT_PROCESS_TEST_VALUE"] = "a b";
  o.cwd = "/";
  vkt::ProcessResult r =
      vkt::RunProcess({kSh, "-c", "printf '%s|%s|%s' \"$VKT_PROCESS_TEST_VALUE\" \"$PWD\" \"$(pwd -P)\""}, o);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "a b|/|/");
}

TEST(RunProcess, SignalIsReportedAs128PlusItsNumber) {
  vkt::ProcessResult r = vkt::RunProcess({kSh, "-c", "kill -SEGV $$"});
  EXPECT_EQ(r.status, 128 + 11);
}

TEST(RunProcess, MissingProgramIs127) {
  vkt::ProcessResult r = vkt::RunProcess({"/nonexistent/program"});
  EXPECT_EQ(r.status, 127);
}

TEST(RunProcess, TimeLimitKillsTheWholeGroup) {
  vkt::ProcessOptions o;
  o.timeout_s = 0.5;
  std::string marker = ::testing::TempDir() + "/vkt_process_group_" + std::to_string(getpid());
  unlink(marker.c_str());
  // A grandchild that would write the marker after 2 s must die with the group.
  vkt::ProcessResult r =
      vkt::RunProcess({kSh, "-c", "(sleep 2; echo late > '" + marker + "') & echo started; sleep 30"}, o);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.status, 128 + 9);
  EXPECT_EQ(r.out, "started\n");
  EXPECT_LT(r.seconds, 10.0);
  sleep(3);
  EXPECT_NE(access(marker.c_str(), F_OK), 0) << "the grandchild outlived the time limit";
}

}  // namespace
