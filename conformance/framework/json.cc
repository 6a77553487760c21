#include "conformance/framework/json.h"

#include <cjson/cJSON.h>

#include <cstdlib>

namespace vkt {

Json Json::Parse(const std::string& text) {
  cJSON* root = cJSON_Parse(text.c_str());
  if (root == nullptr) return Json();
  std::shared_ptr<cJSON> owner(root, cJSON_Delete);
  return Json(owner, root);
}

bool Json::is_null() const { return node_ && cJSON_IsNull(node_); }
bool Json::is_string() const { return node_ && cJSON_IsString(node_); }
bool Json::is_number() const { return node_ && cJSON_IsNumber(node_); }
bool Json::is_bool() const { return node_ && cJSON_IsBool(node_); }
bool Json::is_array() const { return node_ && cJSON_IsArray(node_); }
bool Json::is_object() const { return node_ && cJSON_IsObject(node_); }

Json Json::operator[](const std::string& key) const {
  if (!is_object()) return Json();
  const cJSON* child = cJSON_GetObjectItemCaseSensitive(node_, key.c_str());
  return child ? Json(root_, child) : Json();
}

Json Json::operator[](size_t index) const {
  if (!is_array()) return Json();
  const cJSON* child = cJSON_GetArrayItem(node_, static_cast<int>(index));
  return child ? Json(root_, child) : Json();
}

bool Json::has(const std::string& key) const { return (*this)[key].valid(); }

size_t Json::size() const {
  if (!is_array() && !is_object()) return 0;
  return static_cast<size_t>(cJSON_GetArraySize(node_));
}

std::string Json::str(const std::string& fallback) const {
  if (!is_string()) return fallback;
  return node_->valuestring ? node_->valuestring : fallback;
}

int64_t Json::num(int64_t fallback) const {
  if (!is_number()) return fallback;
  return static_cast<int64_t>(node_->valuedouble);
}

bool Json::boolean(bool fallback) const {
  if (!is_bool()) return fallback;
  return cJSON_IsTrue(node_);
}

std::vector<std::string> Json::strings() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < size(); ++i) out.push_back((*this)[i].str());
  return out;
}

std::vector<std::string> Json::keys() const {
  std::vector<std::string> out;
  if (!is_object()) return out;
  for (const cJSON* c = node_->child; c; c = c->next) out.push_back(c->string ? c->string : "");
  return out;
}

std::string Json::dump() const {
  if (!node_) return "<invalid>";
  char* text = cJSON_PrintUnformatted(node_);
  std::string out = text ? text : "";
  free(text);
  return out;
}

}  // namespace vkt
