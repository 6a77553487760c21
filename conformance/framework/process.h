// vkt::RunProcess: runs a program in a child with its output captured, for tests that drive a
// command-line tool (ldp-check, llp-check, vulkaninfo) rather than the loader through vkprobe.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace vkt {

struct ProcessOptions {
  // Added to (or replacing in) the inherited environment.
  std::map<std::string, std::string> env;
  // Working directory of the child; empty: the test's own.
  std::string cwd;
  // Seconds before the child's process group is killed (SIGKILL); 0: wait as long as it runs.
  // With a limit, whatever the child left running in its group is killed when it ends, too.
  double timeout_s = 0;
};

struct ProcessResult {
  // Exit status, 128 + signal number when a signal ended it, -1 when it could not be started.
  int status = -1;
  bool timed_out = false;
  double seconds = 0;
  std::string out, err;
};

// Runs argv[0] (a path, not searched in PATH) with argv in a process group of its own; stdout and
// stderr go to files under the test's temporary directory, read back and removed.
ProcessResult RunProcess(const std::vector<std::string>& argv, const ProcessOptions& options = ProcessOptions());

}  // namespace vkt
