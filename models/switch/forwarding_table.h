// Destination-based forwarding with ECMP (no SystemC inside: unit-testable).
// Each destination maps to a set of equal-cost output ports; a flow hashes onto one of them
// (per-flow ECMP keeps a flow's frames in order).
#pragma once
#include <cstdint>
#include <map>
#include <vector>

#include "models/core/packet.h"
#include "models/core/random.h"

namespace sluice {

// Which of a destination's equal-cost ports (two or more) a frame takes: the forwarding policy,
// registered by name in forwarding_policies ("ecmp", "first"). Returns an index into `ports`.
class path_selector {
 public:
  virtual ~path_selector() = default;
  virtual std::size_t select(const std::vector<uint16_t>& ports, uint32_t dst, uint32_t src, uint32_t flow_id,
                             uint64_t salt) const = 0;
};

// Per-flow ECMP: the flow (source, flow id, destination) hashes onto one port, salted per switch.
inline std::size_t ecmp_index(std::size_t n, uint32_t dst, uint32_t src, uint32_t flow_id, uint64_t salt) {
  uint64_t key = mix64(salt ^ (static_cast<uint64_t>(flow_id) << 32 | src) ^ mix64(dst));
  return key % n;
}

class adaptive_selector;

class forwarding_table {
 public:
  explicit forwarding_table(uint64_t salt = 0) : salt_(salt) {}
  void set_salt(uint64_t salt) { salt_ = salt; }
  // The equal-cost choice (not owned); null: per-flow ECMP.
  void set_selector(const path_selector* s) { selector_ = s; }
  // A stateful selector (congestion_view.h) that routes the data frames; null: none.
  void set_adaptive(adaptive_selector* a) {
    adaptive_ = a;
    stateful_ = adaptive_ || paths_;
  }
  // Honour the path id a source tagged a frame with (R3C2): path p takes, among a destination's
  // n equal-cost ports, number (p / n^(tier-1)) mod n, the digit d-mod-k takes of a NIC index,
  // so that each path id is one tree (docs/adaptive-routing.md#source-adaptive-routing-r3c2).
  // tier: the switch's in a tiered Clos (1 = edge), 0 elsewhere (taken as 1).
  void honour_paths(int tier) {
    paths_ = true;
    path_tier_ = tier < 1 ? 1 : tier;
    stateful_ = true;
  }
  // Room for routes to destinations below `destinations` (the table then grows no further when
  // routes are set in order: a growing vector would keep up to twice what it holds).
  void reserve(uint32_t destinations) { routes_.reserve(destinations); }
  // Throws config_error when the table would hold more distinct port sets than an index numbers.
  void set_route(uint32_t dst, std::vector<uint16_t> ports);
  const std::vector<uint16_t>& ports(uint32_t dst) const;
  // Returns the output port for the flow, or -1 if dst is unknown.
  int lookup(uint32_t dst, uint32_t src, uint32_t flow_id) const {
    if (dst >= routes_.size()) return -1;
    const uint32_t i = routes_[dst];                              // widened from its 2 bytes
    if (const int sole = sole_[i]; sole != several) return sole;  // one port or none: no set to read
    return choose(sets_[i], dst, src, flow_id);
  }
  // The output port of frame `f` that arrived on `in_port` (-1: made by the switch): lookup(),
  // or for a data frame with a choice the stateful selector's. Defined in congestion_view.h.
  inline int lookup(const frame_fields& f, int in_port) const;
  // lookup(f, in_port) where it makes no call: the destination's one port, or -1 (no route); or
  // `several`, a choice left to make (a set of two or more ports, or a stateful selector), which
  // lookup(f, in_port) makes. The switch's receive asks this first, so that a frame with one way
  // (most, below the top of a tree) is routed with no call and no saved registers.
  static constexpr int several = -2;
  int sole_port(uint32_t dst) const {
    if (stateful_) return several;
    if (dst >= routes_.size()) return -1;
    return sole_[routes_[dst]];
  }

 private:
  int lookup_adaptive(const frame_fields& f, int in_port) const;  // the adaptive choice (out of line)
  // The equal-cost choice among a set of two or more, out of line: the one-way lookup above is
  // then small enough to inline into the switch's receive (most lookups, below a tree's top).
  [[gnu::noinline]] int choose(const std::vector<uint16_t>& set, uint32_t dst, uint32_t src, uint32_t flow_id) const {
    if (selector_) return set[selector_->select(set, dst, src, flow_id, salt_)];
    return set[ecmp_index(set.size(), dst, src, flow_id, salt_)];
  }
  int path_port(const std::vector<uint16_t>& set, uint8_t path) const;

  uint64_t salt_;
  const path_selector* selector_ = nullptr;
  adaptive_selector* adaptive_ = nullptr;
  bool paths_ = false;     // honour_paths
  bool stateful_ = false;  // adaptive_ or paths_: lookup(f, in_port) leaves the oblivious path
  int path_tier_ = 1;
  // Destination -> index into sets_, the table's distinct port sets (sets_[0] is "no route").
  // Interned because a switch has a few distinct sets but an entry per host: a vector per entry
  // cost 56 B (at 10 240 hosts, 300 MB of the 1.6 GB), an index costs 2 (a switch of the k = 34
  // fat tree has a few dozen distinct sets; 4 bytes an entry were 57 MB of its 747 MiB; docs/scale.md).
  using set_index = uint16_t;
  std::vector<set_index> routes_;
  std::vector<std::vector<uint16_t>> sets_{1};
  // Per set: its one port, -1 if empty, `several` if a choice: a lookup of a destination with
  // one way (most, below the top of a tree) reads one number, not the set's two ends and a port.
  std::vector<int> sole_{-1};
  std::map<std::vector<uint16_t>, uint32_t> set_index_;  // sets_ -> index, while routes are set
};

}  // namespace sluice
