#include "models/core/stats.h"

#include <algorithm>
#include <stdexcept>
#include <systemc>

namespace sluice {

stat_registry& stat_registry::instance() {
  static stat_registry registry;
  return registry;
}

void stat_registry::add(const sc_core::sc_object* owner, const char* scope, const stat_desc* descs, std::size_t count,
                        const void* model, int classes, const char* class_label) {
  entries_.push_back({owner, scope, class_label, descs, model, static_cast<uint32_t>(count), classes});
}

std::string stat_registry::owner_of(const counter_ref& c) const {
  const entry& e = entries_[c.registration];
  std::string base = e.owner ? e.owner->name() : "";
  if (e.scope) base += (base.empty() ? "" : ".") + std::string(e.scope);
  return base;
}

std::size_t stat_registry::size() const {
  std::size_t n = 0;
  for (const entry& e : entries_) n += e.count * static_cast<std::size_t>(std::max(e.classes, 1));
  return n;
}

std::vector<stat_registry::row> stat_registry::rows(bool nonzero_only) const {
  std::vector<row> out;
  if (!nonzero_only) out.reserve(size());
  for (const entry& e : entries_) {
    std::string base = e.owner ? e.owner->name() : "";
    if (e.scope) base += (base.empty() ? "" : ".") + std::string(e.scope);
    for (int k = 0; k < std::max(e.classes, 1); ++k) {
      std::string prefix = e.classes > 0 ? base + "." + e.class_label + std::to_string(k) : base;
      const int cls = e.classes > 0 ? k : -1;
      for (uint32_t i = 0; i < e.count; ++i) {
        // The summary wants only non-zero counters: most of a big fabric's are 0, so test the
        // value before composing a name.
        if (nonzero_only && e.descs[i].read(e.model, cls) == 0) continue;
        out.push_back({prefix + "." + e.descs[i].leaf, &e.descs[i], e.model, cls});
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const row& a, const row& b) { return a.name < b.name; });
  auto dup = std::adjacent_find(out.begin(), out.end(), [](const row& a, const row& b) { return a.name == b.name; });
  if (dup != out.end()) throw std::logic_error(dup->name + ": statistic declared twice");
  return out;
}

}  // namespace sluice
