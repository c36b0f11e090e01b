// Destination-based forwarding with ECMP (no SystemC inside: unit-testable).
// Each destination maps to a set of equal-cost output ports; a flow hashes onto one of them
// (per-flow ECMP keeps a flow's frames in order).
#pragma once
#include <cstdint>
#include <vector>

#include "models/core/random.h"

namespace sluice {

class forwarding_table {
 public:
  explicit forwarding_table(uint64_t salt = 0) : salt_(salt) {}
  void set_salt(uint64_t salt) { salt_ = salt; }
  void set_route(uint32_t dst, std::vector<uint16_t> ports);
  const std::vector<uint16_t>& ports(uint32_t dst) const;
  // Returns the output port for the flow, or -1 if dst is unknown.
  int lookup(uint32_t dst, uint32_t src, uint32_t flow_id) const {
    if (dst >= routes_.size() || routes_[dst].empty()) return -1;
    const std::vector<uint16_t>& set = routes_[dst];
    if (set.size() == 1) return set[0];
    uint64_t key = mix64(salt_ ^ (static_cast<uint64_t>(flow_id) << 32 | src) ^ mix64(dst));
    return set[key % set.size()];
  }

 private:
  uint64_t salt_;
  std::vector<std::vector<uint16_t>> routes_;
};

}  // namespace sluice
