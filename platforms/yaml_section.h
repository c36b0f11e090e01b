// Reading one YAML mapping of a scenario with strict key checking.
#pragma once
#include <yaml-cpp/yaml.h>

#include <set>
#include <string>

#include "models/core/units.h"

namespace sluice {

// A YAML map with its key path, that remembers which keys were read so the rest are errors.
class section {
 public:
  section(const YAML::Node& node, std::string path) : node_(node), path_(std::move(path)) {
    if (!node_.IsMap()) throw config_error(path_ + ": expected a mapping");
    reject_duplicate_keys(node_, path_);
  }

  // yaml-cpp keeps the first of two equal keys; a scenario that says `rate` twice is an error.
  static void reject_duplicate_keys(const YAML::Node& map, const std::string& path) {
    std::set<std::string> keys;
    for (auto it = map.begin(); it != map.end(); ++it) {
      if (!it->first.IsScalar()) throw config_error(path + ": a key must be a plain name, not a list or a mapping");
      std::string k = it->first.as<std::string>();
      if (!keys.insert(k).second) throw config_error(path + "." + k + ": key given twice");
    }
  }
  bool has(const std::string& key) {
    seen_.insert(key);
    return static_cast<bool>(node_[key]);
  }
  std::string key_path(const std::string& key) const { return path_ + "." + key; }
  YAML::Node get(const std::string& key) {
    seen_.insert(key);
    return node_[key];
  }
  std::string text(const std::string& key) {
    YAML::Node n = get(key);
    if (!n) throw config_error(key_path(key) + ": missing");
    if (!n.IsScalar()) throw config_error(key_path(key) + ": expected a single value");
    return n.Scalar();
  }
  std::string text_or(const std::string& key, const std::string& fallback) { return has(key) ? text(key) : fallback; }
  void finish() const {
    for (auto it = node_.begin(); it != node_.end(); ++it) {
      std::string k = it->first.as<std::string>();
      if (!seen_.count(k)) throw config_error(key_path(k) + ": unknown key");
    }
  }

 private:
  const YAML::Node node_;  // const: operator[] must not insert the keys it looks up
  std::string path_;
  std::set<std::string> seen_;
};

}  // namespace sluice
