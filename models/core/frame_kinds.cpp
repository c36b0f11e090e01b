#include "models/core/frame_kinds.h"

#include <stdexcept>

namespace sluice {

namespace {
double read_count(const void* m, int) { return static_cast<double>(*static_cast<const uint64_t*>(m)); }
}  // namespace

frame_kind_registry& frame_kind_registry::instance() {
  static frame_kind_registry r;
  return r;
}

frame_kind_registry::frame_kind_registry() {
  // The fabric's own kinds; feedback kinds are registered by the schemes that add them.
  add(frame_kind::data, "data", "data", frame_role::data);
  add(frame_kind::pfc, "pfc", "PFC", frame_role::link_local);
  add(frame_kind::ib_credit, "ib_credit", "IB credit", frame_role::link_local);
}

frame_kind frame_kind_registry::add(frame_kind kind, const std::string& name, const std::string& label,
                                    frame_role role) {
  const auto k = static_cast<uint8_t>(kind);
  if (k >= max_frame_kinds) throw std::logic_error("frame kind '" + name + "': number above max_frame_kinds");
  if (const frame_kind_info* old = find(kind)) {
    if (old->name == name && old->role == role) return kind;
    throw std::logic_error("frame kind " + std::to_string(k) + " registered as '" + old->name + "' and '" + name + "'");
  }
  if (find(name)) throw std::logic_error("frame kind '" + name + "' registered twice");
  infos_.push_back(std::make_unique<frame_kind_info>());
  frame_kind_info& i = *infos_.back();
  i.kind = kind;
  i.name = name;
  i.label = label;
  i.role = role;
  i.received = {nullptr, "frames", nullptr, read_count};
  i.sent = i.received;
  // The strings live in the (never removed) info, so the descriptors may point at them.
  i.leaf_received = i.name + "_received";
  i.leaf_sent = i.name + "_sent";
  i.text_received = i.label + " frames received";
  i.text_sent = i.label + " frames this NIC sent";
  i.received.leaf = i.leaf_received.c_str();
  i.received.description = i.text_received.c_str();
  i.sent.leaf = i.leaf_sent.c_str();
  i.sent.description = i.text_sent.c_str();
  role_[k] = role;
  return kind;
}

frame_kind frame_kind_registry::add(const std::string& name, const std::string& label, frame_role role) {
  if (const frame_kind_info* old = find(name)) return add(old->kind, name, label, role);
  for (int k = shipped_frame_kinds; k < max_frame_kinds; ++k)
    if (!find(static_cast<frame_kind>(k))) return add(static_cast<frame_kind>(k), name, label, role);
  throw std::logic_error("frame kind '" + name + "': no free number (max_frame_kinds)");
}

const frame_kind_info* frame_kind_registry::find(frame_kind k) const {
  for (const auto& i : infos_)
    if (i->kind == k) return i.get();
  return nullptr;
}

const frame_kind_info* frame_kind_registry::find(const std::string& name) const {
  for (const auto& i : infos_)
    if (i->name == name) return i.get();
  return nullptr;
}

std::vector<const frame_kind_info*> frame_kind_registry::kinds() const {
  std::vector<const frame_kind_info*> out;
  for (int k = 0; k < max_frame_kinds; ++k)
    if (const frame_kind_info* i = find(static_cast<frame_kind>(k))) out.push_back(i);
  return out;
}

}  // namespace sluice
