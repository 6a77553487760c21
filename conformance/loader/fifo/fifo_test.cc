// No file the loader opens may block it (RULE_ADVERSARIAL_INPUT): FIFOs where manifests or libraries are
// expected are skipped with a log line, and everything else keeps working. A FIFO without a writer
// blocks open(2) forever; the probe's time limit (10 s; ours takes milliseconds) turns a hang into a
// failure.
#include <sys/stat.h>

#include <string>
#include <vector>

#include "conformance/loader/common.h"
#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

using Names = std::vector<std::string>;

class Fifo : public ::testing::Test {
 protected:
  void SetUp() override {
    AddNamedDriver(s_, "good");
    s_.WriteDriverManifest(Location::kXdgConfigHome, "good");
  }
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
  Sandbox s_;
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

}  // namespace
}  // namespace vkt
