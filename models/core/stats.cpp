#include "models/core/stats.h"

#include "models/core/units.h"

namespace sluice {

stat_registry& stat_registry::instance() {
  static stat_registry registry;
  return registry;
}

void stat_registry::add(const std::string& name, const std::string& unit, const std::string& description, reader read) {
  if (!entries_.emplace(name, entry{name, unit, description, std::move(read)}).second)
    throw config_error(name + ": statistic declared twice");
}

std::vector<const stat_registry::entry*> stat_registry::all() const {
  std::vector<const entry*> out;
  out.reserve(entries_.size());
  for (const auto& [name, e] : entries_) out.push_back(&e);
  return out;
}

}  // namespace sluice
