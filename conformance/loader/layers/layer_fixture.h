// The fixture of the layer tests of //conformance/loader:layers_test (layers_test.cc,
// layer_composition_test.cc, pre_instance_test.cc, clobber_test.cc): one driver and a probe run
// through the usual instance and device steps.
#ifndef VKT_LOADER_LAYERS_LAYER_FIXTURE_H_
#define VKT_LOADER_LAYERS_LAYER_FIXTURE_H_

#include <string>
#include <vector>

#include "conformance/loader/layers/layers_common.h"

namespace vkt {

using V = std::vector<std::string>;

// A sandbox with one driver ("drv", device "drv-dev") found in XDG_CONFIG_HOME.
class LayerFixture : public OneDriverTest {
 protected:
  // instance-layers, create-instance (layers=app), devices, create-device:0, device-layers:0, teardown.
  ProbeResult Run(const std::string& app_layers = "", const std::string& more_opts = "") {
    std::string opts = app_layers.empty() ? "" : "layers=" + app_layers;
    if (!more_opts.empty()) opts += (opts.empty() ? "" : ";") + more_opts;
    return RunProbe(s_, {"instance-layers", opts.empty() ? "create-instance" : "create-instance:" + opts, "devices",
                         "create-device:0", "device-layers:0", "destroy-device", "destroy-instance"});
  }
  V Listed(const ProbeResult& r) { return LayerNames(r); }
  V Chain() { return s_.LayerCallOrder("vkCreateInstance"); }
  V DeviceChain() { return s_.LayerCallOrder("vkCreateDevice"); }
};

}  // namespace vkt

#endif  // VKT_LOADER_LAYERS_LAYER_FIXTURE_H_
