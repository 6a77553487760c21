// Unit tests for the library guard (loader/library_guard.c, RULE_ADVERSARIAL_INPUT): a thread that
// registered a load and then sits in open(2) of that path, a FIFO without a writer, is interrupted
// (EINTR) once the limit has passed; an open of any other path is left alone (a library's
// constructor may wait on a FIFO of its own); the borrowed signal's disposition is put back; the
// watchdog thread ends after a pause and a later load starts another.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

extern "C" {
#include "loader/internal/library_guard.h"
}

namespace {

std::string TempFifo(const char *name) {
    const char *base = getenv("TEST_TMPDIR");
    std::string t = std::string(base != nullptr ? base : "/tmp") + "/guard_XXXXXX";
    std::vector<char> buf(t.begin(), t.end());
    buf.push_back('\0');
    EXPECT_NE(mkdtemp(buf.data()), nullptr);
    std::string path = std::string(buf.data()) + "/" + name;
    EXPECT_EQ(mkfifo(path.c_str(), 0644), 0) << path;
    return path;
}

// Every real-time signal's handler, to compare before and after.
std::vector<void (*)(int)> RtHandlers() {
    std::vector<void (*)(int)> v;
    for (int s = SIGRTMIN; s <= SIGRTMAX; s++) {
        struct sigaction sa;
        sigaction(s, nullptr, &sa);
        v.push_back(sa.sa_handler);
    }
    return v;
}

struct Outcome {
    int fd = -2;
    int err = 0;
    bool interrupted = false;
};

// On a thread of its own: registers a load of `registered`, then opens `opened` for reading.
Outcome LoadAndOpen(const std::string &registered, const std::string &opened, std::atomic<bool> *in_open) {
    Outcome o;
    struct vkl_library_guard_load load;
    vkl_library_guard_begin(&load, registered.c_str());
    in_open->store(true);
    o.fd = open(opened.c_str(), O_RDONLY | O_CLOEXEC);
    o.err = errno;
    o.interrupted = vkl_library_guard_end(&load);
    if (o.fd >= 0) close(o.fd);
    return o;
}

class LibraryGuard : public ::testing::Test {
  protected:
    void SetUp() override { vkl_library_guard_limit_ns = 200000000; }
    void TearDown() override { vkl_library_guard_limit_ns = 1000000000; }
};

TEST_F(LibraryGuard, AnOpenOfTheLibraryPathThatBlocksIsInterrupted) {
    std::string fifo = TempFifo("lib.so");
    std::vector<void (*)(int)> before = RtHandlers();
    uint64_t interrupted_before = 0;
    vkl_library_guard_stats(&interrupted_before, nullptr);
    std::atomic<bool> in_open{false};
    Outcome o;
    auto start = std::chrono::steady_clock::now();
    std::thread t([&] { o = LoadAndOpen(fifo, fifo, &in_open); });
    t.join();
    double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(o.fd, -1);
    EXPECT_EQ(o.err, EINTR) << strerror(o.err);
    EXPECT_TRUE(o.interrupted);
    // Not before the limit: a slow open is not a blocked one.
    EXPECT_GE(waited, 0.2);
    uint64_t interrupted_after = 0;
    vkl_library_guard_stats(&interrupted_after, nullptr);
    EXPECT_EQ(interrupted_after, interrupted_before + 1);
    EXPECT_EQ(RtHandlers(), before) << "a real-time signal's disposition was left changed";
}

TEST_F(LibraryGuard, AnOpenOfAnotherPathIsLeftAlone) {
    std::string fifo = TempFifo("own.fifo");
    std::string library = fifo + ".so"; // what the thread registered: not what it opens
    std::atomic<bool> in_open{false};
    Outcome o;
    std::thread t([&] { o = LoadAndOpen(library, fifo, &in_open); });
    while (!in_open.load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    // Well past the limit (several watchdog rounds), then a writer releases the open.
    std::this_thread::sleep_for(std::chrono::milliseconds(900));
    int w = open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(w, 0) << strerror(errno);
    t.join();
    close(w);
    EXPECT_GE(o.fd, 0) << "the open of a path other than the library's was interrupted: " << strerror(o.err);
    EXPECT_FALSE(o.interrupted);
}

TEST_F(LibraryGuard, TheWatchdogEndsWhenIdleAndALaterLoadStartsAnother) {
    uint64_t threads_before = 0;
    struct vkl_library_guard_load load;
    vkl_library_guard_begin(&load, "/nonexistent/a.so");
    EXPECT_FALSE(vkl_library_guard_end(&load));
    vkl_library_guard_stats(nullptr, &threads_before);
    EXPECT_GE(threads_before, 1u);
    // Loads in a row share one watchdog.
    for (int i = 0; i < 100; i++) {
        vkl_library_guard_begin(&load, "/nonexistent/b.so");
        EXPECT_FALSE(vkl_library_guard_end(&load));
    }
    uint64_t threads_burst = 0;
    vkl_library_guard_stats(nullptr, &threads_burst);
    EXPECT_EQ(threads_burst, threads_before);
    // After 100 ms without a load it ends; the next load starts a new one.
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    vkl_library_guard_begin(&load, "/nonexistent/c.so");
    EXPECT_FALSE(vkl_library_guard_end(&load));
    uint64_t threads_after = 0;
    vkl_library_guard_stats(nullptr, &threads_after);
    EXPECT_EQ(threads_after, threads_before + 1);
}

} // namespace
