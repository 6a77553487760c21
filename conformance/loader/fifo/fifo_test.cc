// No file the loader opens may block it (RULE_ADVERSARIAL_INPUT): FIFOs where manifests or libraries are
// expected are skipped with a log line, and everything else keeps working. A FIFO without a writer
// blocks open(2) forever; the probe's time limit (10 s; ours takes milliseconds) turns a hang into a
// failure.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "conformance/loader/common.h"
#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

using Names = std::vector<std::string>;

class Fifo : public OneDriverTest {
 protected:
  Fifo() : OneDriverTest("good") {}
  std::string MakeFifo(const std::string& name) {
    std::string path = s_.root() + "/" + name;
    EXPECT_EQ(mkfifo(path.c_str(), 0644), 0) << path;
    return path;
  }
  ProbeResult Run(const std::vector<std::string>& steps) {
    ProbeOptions o;
    o.timeout_seconds = 10;
    return RunProbe(s_, steps, o);
  }
};

TEST_F(Fifo, DriverManifestThatIsAFifoIsSkipped) {
  VKT_POLICY("LDP_DRIVER_4", "LDP_LOADER_2");
  std::string fifo = MakeFifo("fifo.json");
  // In a search directory, and named by VK_ADD_DRIVER_FILES.
  ASSERT_EQ(mkfifo((s_.IcdDir(Location::kXdgConfigHome) + "/a_fifo.json").c_str(), 0644), 0);
  s_.SetEnv("VK_ADD_DRIVER_FILES", fifo);
  ProbeResult r = Run({"create-instance", "devices", "destroy-instance"});
  ASSERT_EQ(r.exit_status, 0) << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"good-dev"}) << r.Describe();
}

TEST_F(Fifo, DriverLibraryThatIsAFifoIsSkipped) {
  VKT_POLICY("LDP_DRIVER_4", "RULE_DRV_LIBRARY_LOAD_FAILURE");
  std::string fifo = MakeFifo("libfifo_icd.so");
  s_.WriteManifest(
      Location::kXdgConfigHome, "fifo.json",
      "{\"file_format_version\":\"1.0.0\",\"ICD\":{\"library_path\":\"" + fifo + "\",\"api_version\":\"1.3.0\"}}");
  ProbeResult r = Run({"create-instance", "devices", "destroy-instance"});
  ASSERT_EQ(r.exit_status, 0) << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"good-dev"}) << r.Describe();
  if (LoaderName() == "ours") {
    std::vector<std::string> lines = r.LogLines("cannot load its library");
    ASSERT_EQ(lines.size(), 1u) << r.err.substr(r.err.size() > 6000 ? r.err.size() - 6000 : 0);
    // The reason first, then the library (the message is cut at 511 bytes, as the Khronos loader
    // cuts it: the sandbox paths are long).
    EXPECT_NE(lines[0].find("cannot load its library: not a regular file"), std::string::npos) << lines[0];
  }
}

TEST_F(Fifo, LayerLibraryThatIsAFifoIsNotLoaded) {
  VKT_POLICY("LLP_LAYER_6");
  std::string fifo = MakeFifo("libfifo_layer.so");
  s_.WriteLayerManifest(Location::kXdgDataDirs, false, "fifo_layer.json",
                        LayerManifest("1.2.1", {LayerObject("VK_LAYER_VKT_fifo", fifo)}));
  s_.WriteLayerManifest(Location::kXdgDataDirs, true, "fifo_implicit.json",
                        LayerManifest("1.2.1", {LayerObject("VK_LAYER_VKT_fifo_implicit", fifo,
                                                            DisableEnv("VK_LAYER_VKT_fifo_implicit"))}));
  ProbeResult r = Run({"instance-extensions", "instance-layers", "create-instance:layers=VK_LAYER_VKT_fifo",
                       "create-instance", "devices", "destroy-instance"});
  ASSERT_EQ(r.exit_status, 0) << r.Describe();
  EXPECT_EQ(r.Step("create-instance", 0)["result"].str(), "VK_ERROR_LAYER_NOT_PRESENT") << r.Describe();
  EXPECT_EQ(r.Step("create-instance", 1)["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"good-dev"}) << r.Describe();
}

// The window a library check leaves: the loader checks the path without blocking, then glibc's
// dlopen opens it again with a blocking open(2). libvkt_fifoswap.so renames a FIFO over the driver's
// library right after the check, every run (no timing). The dlopen must not block for good: ours
// interrupts it (loader/library_guard.c) and goes on without that driver, logs why, and loads it at
// the next call once the library is back. Without the guard the probe blocks until its time limit.
TEST_F(Fifo, FifoRenamedOverALibraryAfterItsCheckDoesNotBlock) {
  VKT_POLICY("LDP_DRIVER_4", "RULE_ADVERSARIAL_INPUT");
  const Driver& d = AddNamedDriver(s_, "swapped");
  s_.WriteDriverManifest(Location::kXdgConfigHome, "swapped");
  std::string keep = s_.root() + "/swapped_original.so";
  ASSERT_EQ(link(d.library.c_str(), keep.c_str()), 0) << keep;
  std::string fifo = MakeFifo("swap_fifo");
  std::string log = s_.root() + "/fifoswap.log";
  s_.SetEnv("LD_PRELOAD", Runfile("conformance/framework/libvkt_fifoswap.so"));
#ifdef VKT_ASAN
  // Preloaded ahead of the sanitizer runtime: fine for interposition, but ASan must be told.
  const char* asan = getenv("ASAN_OPTIONS");
  s_.SetEnv("ASAN_OPTIONS", std::string(asan != nullptr ? asan : "") + ":verify_asan_link_order=0");
#endif
  s_.SetEnv("VKT_FIFOSWAP_PATH", d.library);
  s_.SetEnv("VKT_FIFOSWAP_FIFO", fifo);
  s_.SetEnv("VKT_FIFOSWAP_RESTORE", keep);
  s_.SetEnv("VKT_FIFOSWAP_LOG", log);
  s_.SetEnv("VK_LOADER_DEBUG", "error");
  ProbeOptions o;
  o.timeout_seconds = 20;
  ProbeResult r = RunProbe(
      s_, {"create-instance", "devices", "destroy-instance", "create-instance", "devices", "destroy-instance"}, o);
  ASSERT_EQ(r.exit_status, 0) << "dlopen blocked on the FIFO (or the probe crashed)\n" << r.Describe();
  ASSERT_EQ(r.Steps("devices").size(), 2u) << r.Describe();
  std::string swaps = ReadFileText(log);
  if (swaps.empty()) {
    // This loader never opens the library itself before dlopen (the Khronos loaders): no check,
    // so no window of this kind, and nothing was swapped. Both calls see both drivers.
    EXPECT_EQ(Sorted(r.DeviceNames(0)), (Names{"good-dev", "swapped-dev"})) << r.Describe();
    EXPECT_EQ(Sorted(r.DeviceNames(1)), (Names{"good-dev", "swapped-dev"})) << r.Describe();
    return;
  }
  // The swap happened, and the library was put back before the second call.
  ASSERT_EQ(swaps, "swapped\nrestored\n") << r.Describe();
  EXPECT_EQ(r.DeviceNames(0), Names{"good-dev"}) << r.Describe();
  EXPECT_EQ(Sorted(r.DeviceNames(1)), (Names{"good-dev", "swapped-dev"})) << r.Describe();
  if (LoaderName() == "ours") {
    std::vector<std::string> lines = r.LogLines("cannot load its library");
    ASSERT_EQ(lines.size(), 1u) << r.err;
    EXPECT_NE(lines[0].find("was interrupted"), std::string::npos) << lines[0];
  }
}

// Renames a FIFO and a regular file over `path` in turn, every ~50 us, until Stop(): each is a hard
// link of a fixed source renamed over the path, so every flip is one atomic rename(2) and the path
// always exists (the race the loader must survive: whatever it checks may be swapped before it
// opens, RULE_ADVERSARIAL_INPUT). Leaves the regular file in place.
class Flipper {
 public:
  Flipper(std::string path, std::string regular_src, std::string fifo_src)
      : path_(std::move(path)), regular_(std::move(regular_src)), fifo_(std::move(fifo_src)) {}
  void Start() {
    thread_ = std::thread([this] { Run(); });
  }
  void Stop() {
    stop_ = true;
    thread_.join();
  }
  unsigned long fifo_flips() const { return fifo_flips_; }

 private:
  bool Put(const std::string& src) {
    std::string tmp = path_ + ".flip";
    unlink(tmp.c_str());
    return link(src.c_str(), tmp.c_str()) == 0 && rename(tmp.c_str(), path_.c_str()) == 0;
  }
  void Run() {
    while (!stop_) {
      if (Put(fifo_)) fifo_flips_++;
      usleep(50);
      Put(regular_);
      usleep(50);
    }
    Put(regular_);
  }
  std::string path_, regular_, fifo_;
  std::atomic<bool> stop_{false};
  std::atomic<unsigned long> fifo_flips_{0};
  std::thread thread_;
};

enum class Target { kDriverManifest, kSettingsFile };

class FifoRace : public Fifo, public ::testing::WithParamInterface<Target> {};

// The manifest and the settings file are read through the very descriptor whose fstat found a
// regular file (loader/fileio.c vkl_file_open, opened with O_NONBLOCK): no interleaving of renames
// can make the loader open a FIFO it then blocks on. Thousands of global calls and instances while
// the file flips; a blocked open would hang the probe until its time limit. (A driver library is
// not among the targets: dlopen opens the path again after the loader's non-blocking check, and
// FifoRenamedOverALibraryAfterItsCheckDoesNotBlock puts a FIFO in that window every run.)
TEST_P(FifoRace, FlippingBetweenAFifoAndAFileNeverBlocks) {
  VKT_POLICY("LDP_DRIVER_4", "RULE_ADVERSARIAL_INPUT");
  std::string path, text;
  if (GetParam() == Target::kDriverManifest) {
    path = s_.IcdDir(Location::kXdgConfigHome) + "/good.json";
    text = ReadFileText(path);
  } else {
    std::string dir = s_.xdg_config_home() + "/vulkan/loader_settings.d";
    ASSERT_TRUE(MakeDirs(dir));
    path = dir + "/vk_loader_settings.json";
    text = "{\"file_format_version\": \"1.0.0\", \"settings\": {\"stderr_log\": [\"error\"]}}";
    s_.WriteFile(path, text);
  }
  ASSERT_FALSE(text.empty()) << path;
  std::string regular = s_.root() + "/flip_regular", fifo = s_.root() + "/flip_fifo";
  s_.WriteFile(regular, text);
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0) << fifo;
  s_.SetEnv("VK_LOADER_DEBUG", "error");
  std::vector<std::string> steps;
  for (int i = 0; i < 1500; i++) {
    steps.push_back("instance-extensions");
    if (i % 5 == 0) {
      steps.push_back("create-instance");
      steps.push_back("destroy-instance");
    }
  }
  Flipper flip(path, regular, fifo);
  flip.Start();
  ProbeOptions o;
  // Plain, the probe needs 1-4 s. Under AddressSanitizer it took 4-14 s beside a CI run, and was
  // once killed at 45 s in CI's sanitizer stage, where four sanitized tests share two cores; the
  // limit is for a FIFO that blocks for good, so it is scaled as the adversarial budgets are.
#ifdef VKT_ASAN
  o.timeout_seconds = 180;
#else
  o.timeout_seconds = 45;
#endif
  ProbeResult r = RunProbe(s_, steps, o);
  flip.Stop();
  // How far the probe got tells a block (stuck at one step) from a slow run.
  ASSERT_EQ(r.exit_status, 0) << "a FIFO blocked the loader or it crashed after "
                              << r.Steps("instance-extensions").size() << " of 1500 instance-extensions steps, "
                              << flip.fifo_flips() << " FIFO renames\n"
                              << r.err.substr(r.err.size() > 4000 ? r.err.size() - 4000 : 0);
  EXPECT_EQ(r.Steps("instance-extensions").size(), 1500u);
  EXPECT_EQ(r.Steps("create-instance").size(), 300u);
  // The race was run: the FIFO stood at the path many times while the probe ran.
  EXPECT_GT(flip.fifo_flips(), 100u);
}

INSTANTIATE_TEST_SUITE_P(Files, FifoRace, ::testing::Values(Target::kDriverManifest, Target::kSettingsFile),
                         [](const ::testing::TestParamInfo<Target>& i) {
                           return i.param == Target::kDriverManifest ? std::string("DriverManifest")
                                                                     : std::string("SettingsFile");
                         });

}  // namespace
}  // namespace vkt
