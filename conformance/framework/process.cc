#include "conformance/framework/process.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "conformance/framework/sandbox.h"
#include "gtest/gtest.h"

namespace vkt {

ProcessResult RunProcess(const std::vector<std::string>& argv, const ProcessOptions& options) {
  static std::atomic<int> counter{0};
  ProcessResult r;
  if (argv.empty()) {
    ADD_FAILURE() << "RunProcess: empty argv";
    return r;
  }
  std::string base =
      ::testing::TempDir() + "/vkt_process_" + std::to_string(getpid()) + "_" + std::to_string(counter.fetch_add(1));
  std::string out_path = base + ".out", err_path = base + ".err";
  // Everything the child needs is built before fork: the child only calls async-signal-safe
  // functions and setenv (the parent is single-threaded here, as gtest runs tests).
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    ADD_FAILURE() << "fork: " << strerror(errno);
    return r;
  }
  if (pid == 0) {
    setpgid(0, 0);
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) _exit(126);
    if (freopen(out_path.c_str(), "w", stdout) == nullptr || freopen(err_path.c_str(), "w", stderr) == nullptr)
      _exit(126);
    for (const auto& kv : options.env) setenv(kv.first.c_str(), kv.second.c_str(), 1);
    execv(cargv[0], cargv.data());
    _exit(127);
  }
  setpgid(pid, pid);  // either side may run first
  int st = 0;
  if (options.timeout_s <= 0) {
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
  } else {
    for (;;) {
      pid_t w = waitpid(pid, &st, WNOHANG);
      if (w == pid || (w < 0 && errno != EINTR)) break;
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > options.timeout_s) {
        r.timed_out = true;
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
        break;
      }
      struct timespec ts = {0, 10 * 1000 * 1000};
      nanosleep(&ts, nullptr);
    }
    kill(-pid, SIGKILL);  // whatever it left behind in its group
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
  r.out = ReadFileText(out_path);
  r.err = ReadFileText(err_path);
  unlink(out_path.c_str());
  unlink(err_path.c_str());
  return r;
}

}  // namespace vkt
