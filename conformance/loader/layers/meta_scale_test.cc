// Meta-layer graphs at scale (LLP_LOADER_10, LLP_LAYER_7): chains, diamonds and cycles of about
// 1,000 meta-layers must be validated in time linear in the graph. The probe's time limit is the
// budget: validation that walks every path of a diamond (exponential in its depth) never ends.
#include <string>
#include <vector>

#include "conformance/loader/common.h"
#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

using Names = std::vector<std::string>;

std::string MetaName(const std::string& tag, int i) { return "VK_LAYER_VKT_" + tag + "_" + std::to_string(i); }

std::string MetaObject(const std::string& name, const std::vector<std::string>& components) {
  std::string list;
  for (size_t i = 0; i < components.size(); ++i) list += (i ? ", \"" : "\"") + components[i] + "\"";
  return LayerObject(name, "", ", \"component_layers\": [" + list + "]");
}

class MetaScale : public OneDriverTest {
 protected:
  void SetUp() override {
    OneDriverTest::SetUp();
    const Layer& l = s_.AddLayer("VK_LAYER_VKT_meta_leaf", "v2_gpdpa");
    objects_.push_back(LayerObject(l.name, l.library));
  }
  ProbeResult Run(const std::vector<std::string>& steps) {
    s_.WriteLayerManifest(Location::kXdgDataDirs, false, "metas.json", LayerManifest("1.2.1", objects_));
    s_.SetEnv("VK_LOADER_DEBUG", "error");  // a thousand warnings are not what is measured
    ProbeOptions o;
    o.timeout_seconds = 20;  // ours: well under a second on a 2-core machine
    return RunProbe(s_, steps, o);
  }
  std::vector<std::string> objects_;
};

TEST_F(MetaScale, ChainOfAThousandKeepsOnlyTheShallowEnd) {
  VKT_POLICY("LLP_LOADER_10");
  const int n = 1000;
  for (int i = 0; i < n; ++i)
    objects_.push_back(MetaObject(MetaName("chain", i),
                                  {i + 1 < n ? MetaName("chain", i + 1) : std::string("VK_LAYER_VKT_meta_leaf")}));
  ProbeResult r = Run({"instance-layers", "destroy-instance"});
  ASSERT_EQ(r.exit_status, 0) << r.Describe().substr(0, 4000);
  Names names = LayerNames(r);
  // A meta-layer may nest at most 16 meta-layers (itself included): the last 16 of the chain stay.
  EXPECT_TRUE(Contains(names, MetaName("chain", n - 1)));
  EXPECT_TRUE(Contains(names, MetaName("chain", n - 16)));
  EXPECT_FALSE(Contains(names, MetaName("chain", n - 17)));
  EXPECT_FALSE(Contains(names, MetaName("chain", 0)));
  EXPECT_TRUE(Contains(names, "VK_LAYER_VKT_meta_leaf"));
}

TEST_F(MetaScale, DiamondsOfAThousandAreValidAndEnableTheirLeaf) {
  VKT_POLICY("LLP_LOADER_10", "LLP_LAYER_7");
  // 16 levels of 62 meta-layers; every meta-layer names every meta-layer of the level below:
  // 62^15 paths from the top, 57,660 edges.
  const int levels = 16, width = 62;
  for (int lv = 0; lv < levels; ++lv)
    for (int i = 0; i < width; ++i) {
      std::vector<std::string> comps;
      if (lv + 1 < levels) {
        for (int k = 0; k < width; ++k) comps.push_back(MetaName("d" + std::to_string(lv + 1), k));
      } else {
        comps.push_back("VK_LAYER_VKT_meta_leaf");
      }
      objects_.push_back(MetaObject(MetaName("d" + std::to_string(lv), i), comps));
    }
  ProbeResult r = Run({"instance-layers", "create-instance:layers=" + MetaName("d0", 0), "destroy-instance"});
  ASSERT_EQ(r.exit_status, 0) << r.Describe().substr(0, 4000);
  Names names = LayerNames(r);
  EXPECT_EQ(names.size(), static_cast<size_t>(levels * width + 1));
  EXPECT_TRUE(Contains(names, MetaName("d0", 0)));
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe().substr(0, 4000);
  // The leaf, reached through the top meta-layer, is in the chain exactly once.
  EXPECT_EQ(s_.LayerCallOrder("vkCreateInstance"), Names{"VK_LAYER_VKT_meta_leaf"});
}

TEST_F(MetaScale, CycleOfAThousandIsRejectedWhole) {
  VKT_POLICY("LLP_LOADER_10");
  const int n = 1000;
  for (int i = 0; i < n; ++i)
    objects_.push_back(MetaObject(MetaName("ring", i), {"VK_LAYER_VKT_meta_leaf", MetaName("ring", (i + 1) % n)}));
  ProbeResult r = Run({"instance-layers", "destroy-instance"});
  ASSERT_EQ(r.exit_status, 0) << r.Describe().substr(0, 4000);
  EXPECT_EQ(LayerNames(r), Names{"VK_LAYER_VKT_meta_leaf"});
}

}  // namespace
}  // namespace vkt
