// Helpers shared by the layer conformance tests (conformance/loader/layers).
#ifndef VKT_LOADER_LAYERS_COMMON_H_
#define VKT_LOADER_LAYERS_COMMON_H_

#include <string>
#include <vector>

#include "conformance/loader/common.h"

namespace vkt {

// One layer object of a layer manifest. `extra` is spliced in as further members (",\"k\": v").
inline std::string LayerObject(const std::string& name, const std::string& library_path, const std::string& extra = "",
                               const std::string& api = "1.3.0") {
  std::string o = "{\"name\": \"" + name + "\", \"type\": \"GLOBAL\", ";
  if (!library_path.empty()) o += "\"library_path\": \"" + library_path + "\", ";
  return o + "\"api_version\": \"" + api + "\", \"implementation_version\": \"1\", \"description\": \"mock layer\"" +
         extra + "}";
}

// A manifest holding one layer object ("layer") or several ("layers", file format >= 1.0.1).
inline std::string LayerManifest(const std::string& version, const std::vector<std::string>& objects) {
  std::string s = "{\"file_format_version\": \"" + version + "\", ";
  if (objects.size() == 1) return s + "\"layer\": " + objects[0] + "}";
  s += "\"layers\": [";
  for (size_t i = 0; i < objects.size(); ++i) s += (i ? ", " : "") + objects[i];
  return s + "]}";
}

// The disable_environment member every implicit layer needs (LLP_LAYER_9): DISABLE_<name>=1.
inline std::string DisableEnv(const std::string& name) {
  return ", \"disable_environment\": {\"DISABLE_" + name + "\": \"1\"}";
}

// Adds mock layer `name` (variant `variant`) and writes its manifest at `loc`.
inline std::string AddMockLayer(Sandbox& s, const std::string& name, bool implicit,
                                Location loc = Location::kXdgDataDirs, const std::string& variant = "v2_gpdpa",
                                const std::string& extra = "", const std::string& scenario_members = "",
                                const std::string& version = "1.2.1", int index = 0) {
  const Layer& l = s.AddLayer(name, variant, scenario_members);
  std::string members = (implicit ? DisableEnv(name) : std::string()) + extra;
  return s.WriteLayerManifest(loc, implicit, name + ".json",
                              LayerManifest(version, {LayerObject(name, l.library, members)}), index);
}

// Names from an instance-layers (or device-layers) step.
inline std::vector<std::string> LayerNames(const ProbeResult& r, const std::string& step = "instance-layers") {
  std::vector<std::string> out;
  Json layers = r.Step(step)["layers"];
  for (size_t i = 0; i < layers.size(); ++i)
    out.push_back(layers[i].is_string() ? layers[i].str() : layers[i]["name"].str());
  return out;
}

inline bool Contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace vkt

#endif  // VKT_LOADER_LAYERS_COMMON_H_
