#include "models/core/stats.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <systemc>

namespace sluice {

stat_registry& stat_registry::instance() {
  static stat_registry registry;
  return registry;
}

void stat_registry::add(const sc_core::sc_object* owner, const char* scope, const stat_desc* descs, std::size_t count,
                        const void* model, int classes, const char* class_label) {
  if (count > UINT16_MAX || classes < 0 || classes > INT16_MAX)
    throw std::logic_error("stat_registry: a table of " + std::to_string(count) + " statistics for " +
                           std::to_string(classes) + " classes");
  uint32_t counters = 0;
  for (std::size_t i = 0; i < std::min<std::size_t>(count, mask_bits); ++i)
    if (descs[i].kind == stat_kind::counter) counters |= 1u << i;
  entries_.push_back(
      {owner, scope, class_label, descs, model, static_cast<uint16_t>(count), static_cast<int16_t>(classes), counters});
}

std::string stat_registry::owner_of(const counter_ref& c) const {
  const entry& e = entries_[c.registration];
  std::string base = e.owner ? e.owner->name() : "";
  if (e.scope) base += (base.empty() ? "" : ".") + std::string(e.scope);
  return base;
}

std::size_t stat_registry::size() const {
  std::size_t n = 0;
  for (const entry& e : entries_) n += e.count * static_cast<std::size_t>(std::max<int>(e.classes, 1));
  return n;
}

stat_registry::listing stat_registry::list(bool nonzero_only) const {
  // Two passes over the same rows: the first sizes the buffers exactly (a buffer grown by
  // doubling holds up to twice the names, and copies them as it grows), the second fills them.
  const auto visit = [&](auto&& f) {
    for (uint32_t r = 0; r < entries_.size(); ++r) {
      const entry& e = entries_[r];
      std::string base = e.owner ? e.owner->name() : "";
      if (e.scope) base += (base.empty() ? "" : ".") + std::string(e.scope);
      for (int k = 0; k < std::max<int>(e.classes, 1); ++k) {
        const std::string prefix = e.classes > 0 ? base + "." + e.class_label + std::to_string(k) : base;
        const int cls = e.classes > 0 ? k : -1;
        for (uint32_t i = 0; i < e.count; ++i)
          // The summary wants only non-zero counters: most of a big fabric's are 0, so test the
          // value before composing a name.
          if (!nonzero_only || e.descs[i].read(e.model, cls) != 0)
            f(prefix, e.descs[i].leaf, listed{r, static_cast<int16_t>(cls), static_cast<uint16_t>(i)});
      }
    }
  };
  std::size_t rows = 0, bytes = 0;
  visit([&](const std::string& prefix, const char* leaf, listed) {
    ++rows;
    bytes += prefix.size() + 1 + std::strlen(leaf);
  });
  listing l;
  l.names.reserve(bytes);
  l.starts.reserve(rows + 1);
  l.refs.reserve(rows);
  l.starts.push_back(0);
  visit([&](const std::string& prefix, const char* leaf, listed ref) {
    l.names.append(prefix).append(".").append(leaf);
    l.starts.push_back(static_cast<uint32_t>(l.names.size()));
    l.refs.push_back(ref);
  });
  l.order.resize(l.refs.size());
  for (uint32_t i = 0; i < l.order.size(); ++i) l.order[i] = i;
  std::sort(l.order.begin(), l.order.end(), [&l](uint32_t a, uint32_t b) { return l.name(a) < l.name(b); });
  const auto dup = std::adjacent_find(l.order.begin(), l.order.end(),
                                      [&l](uint32_t a, uint32_t b) { return l.name(a) == l.name(b); });
  if (dup != l.order.end()) throw std::logic_error(std::string(l.name(*dup)) + ": statistic declared twice");
  return l;
}

std::vector<stat_registry::row> stat_registry::rows(bool nonzero_only) const {
  const listing l = list(nonzero_only);
  std::vector<row> out;
  out.reserve(l.order.size());
  for (uint32_t i : l.order) {
    const listed& r = l.refs[i];
    const entry& e = entries_[r.registration];
    out.push_back({std::string(l.name(i)), &e.descs[r.desc], e.model, r.cls});
  }
  return out;
}

}  // namespace sluice
