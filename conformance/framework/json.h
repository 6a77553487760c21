// A read-only view of a parsed JSON document (cJSON underneath; test code only).
#ifndef VKT_FRAMEWORK_JSON_H_
#define VKT_FRAMEWORK_JSON_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct cJSON;

namespace vkt {

class Json {
 public:
  Json() = default;
  // Parses `text`; an invalid document gives a Json whose valid() is false.
  static Json Parse(const std::string& text);

  bool valid() const { return node_ != nullptr; }
  bool is_null() const;
  bool is_string() const;
  bool is_number() const;
  bool is_bool() const;
  bool is_array() const;
  bool is_object() const;

  // Missing keys / indices give an invalid Json (never throws).
  Json operator[](const std::string& key) const;
  Json operator[](const char* key) const { return (*this)[std::string(key)]; }
  Json operator[](size_t index) const;
  Json operator[](int index) const { return (*this)[static_cast<size_t>(index)]; }
  bool has(const std::string& key) const;
  size_t size() const;  // array / object size, 0 otherwise

  std::string str(const std::string& fallback = "") const;
  int64_t num(int64_t fallback = -1) const;
  bool boolean(bool fallback = false) const;
  std::vector<std::string> strings() const;  // array of strings
  std::vector<std::string> keys() const;     // object keys
  std::string dump() const;                  // compact text

 private:
  Json(std::shared_ptr<cJSON> root, const cJSON* node) : root_(std::move(root)), node_(node) {}
  std::shared_ptr<cJSON> root_;
  const cJSON* node_ = nullptr;
};

}  // namespace vkt

#endif  // VKT_FRAMEWORK_JSON_H_
