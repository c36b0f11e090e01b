#include "models/switch/forwarding_table.h"

#include <limits>
#include <string>

#include "models/core/units.h"
#include "models/switch/congestion_view.h"
#include "models/switch/switch_policies.h"

namespace sluice {
namespace {
struct ecmp final : path_selector {
  std::size_t select(const std::vector<uint16_t>& ports, uint32_t dst, uint32_t src, uint32_t flow_id,
                     uint64_t salt) const override {
    return ecmp_index(ports.size(), dst, src, flow_id, salt);
  }
};
const policy_registrar<forwarding_policies> ecmp_reg{
    "ecmp", "per-flow hash over the equal-cost ports (salted per switch from the seed)",
    [] { return std::make_unique<ecmp>(); }};
}  // namespace

void forwarding_table::set_route(uint32_t dst, std::vector<uint16_t> ports) {
  if (dst >= routes_.size()) routes_.resize(dst + 1, 0);
  if (ports.empty()) {
    routes_[dst] = 0;
    return;
  }
  auto [it, added] = set_index_.try_emplace(ports, static_cast<uint32_t>(sets_.size()));
  if (added && sets_.size() > std::numeric_limits<set_index>::max()) {
    set_index_.erase(it);
    throw config_error("a switch's forwarding table holds at most " +
                       std::to_string(std::numeric_limits<set_index>::max()) + " distinct sets of equal-cost ports");
  }
  if (added) {
    sole_.push_back(ports.size() == 1 ? ports[0] : several);
    sets_.push_back(std::move(ports));
  }
  routes_[dst] = static_cast<set_index>(it->second);
}

const std::vector<uint16_t>& forwarding_table::ports(uint32_t dst) const {
  return sets_[dst < routes_.size() ? routes_[dst] : 0];
}

int forwarding_table::lookup_adaptive(const frame_fields& f, int in_port) const {
  if (ports(f.dst).size() > 1) {
    if (paths_ && f.path) return path_port(ports(f.dst), f.path);  // a source-routed frame keeps its tree
    if (adaptive_ && f.kind == frame_kind::data) return adaptive_->choose(ports(f.dst), f, in_port, now_ps(), salt_);
  }
  return lookup(f.dst, f.src, f.flow_id);
}

int forwarding_table::path_port(const std::vector<uint16_t>& set, uint8_t path) const {
  uint64_t divisor = 1;
  for (int k = 1; k < path_tier_; ++k) divisor *= set.size();
  return set[((path - 1u) / divisor) % set.size()];
}

}  // namespace sluice
