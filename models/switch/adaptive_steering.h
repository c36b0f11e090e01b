// The common part of the adaptive forwarding policies (adaptive, adaptive-local): where each flow
// is pinned, when it may move, and the pick of the cheapest port. A policy says only what a port
// costs for a frame now and when a pinned flow should leave its port.
//
// Granularity: per flow (a flow stays on its port until should_leave says so), per flowlet (also
// re-chosen after a gap of ar.flowlet_gap in the flow), per packet (every frame chosen). The
// candidates are the destination's equal-cost ports, all minimal paths, never the ingress port;
// they are tried in a preference order that starts at the flow's ECMP port, so that without
// congestion a flow takes the port ECMP would give it. A flow moves only to a cheaper port, and
// at most one flow leaves a port per ar.hold (the notifications that made one flow leave keep
// arriving for a round trip, and would otherwise send every flow of the port the same way).
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include "models/switch/congestion_view.h"

namespace sluice {

struct ar_config {
  enum class unit : uint8_t { flow, flowlet, packet };
  unit granularity = unit::flow;
  uint64_t flowlet_gap_ps = 0;
  uint64_t aging_ps = 0;
  uint64_t hold_ps = 0;
  uint64_t queue_threshold = 0;  // bytes
  bool absorb = true;            // a notification the switch acted on goes no further
};

class steering_selector : public adaptive_selector {
 public:
  void configure(const ar_config& c, int ports, const forwarding_table& routes) {
    cfg_ = c;
    routes_ = &routes;
    table_.set_ports(ports);
    left_ps_.assign(static_cast<std::size_t>(ports), never);
  }
  int choose(const std::vector<uint16_t>& ports, const frame_fields& f, int in_port, uint64_t now_ps,
             uint64_t salt) final;
  const congestion_table& table() const { return table_; }
  uint64_t reroutes() const { return reroutes_; }    // a pinned flow moved to another port
  uint64_t snooped() const { return snooped_; }      // notifications entered in the table
  uint64_t unmatched() const { return unmatched_; }  // notifications about flows this switch never routed
  uint64_t absorbed() const { return absorbed_; }    // notifications acted on here and not passed on

 protected:
  // What sending f on `port` costs now (lower is better).
  virtual uint64_t cost(int port, const frame_fields& f, uint64_t now_ps) const = 0;
  // Whether a flow on `port` since placed_ps should leave it now.
  virtual bool should_leave(int port, const frame_fields& f, uint64_t placed_ps, uint64_t now_ps) const = 0;
  // Whether nothing is known against `port` (the notification need not reach the source).
  virtual bool quiet_port(int port, const frame_fields& f, uint64_t now_ps) const { return cost(port, f, now_ps) == 0; }
  // Whether the congestion on `port` is this switch's own (a move must then even out its flows).
  virtual bool local_congestion(int port, const frame_fields& f, uint64_t now_ps) const = 0;
  // The port flow `flow_id` last took towards `dst`, or -1.
  int pinned_port(uint32_t flow_id, uint32_t& dst) const {
    if (flow_id >= flows_.size() || flows_[flow_id].port == none) return -1;
    dst = flows_[flow_id].dst;
    return flows_[flow_id].port;
  }
  // A notification about flow_id said its port is congested: moves the flow now to a port that
  // costs nothing, if the hold allows and there is one. Returns whether it moved or had moved
  // within the hold (the notification is then about a path the flow has left).
  bool steer_away(uint32_t flow_id, uint64_t now_ps);
  ar_config cfg_;
  congestion_table table_;
  const forwarding_table* routes_ = nullptr;
  uint64_t snooped_ = 0, unmatched_ = 0, absorbed_ = 0;

 private:
  static constexpr uint16_t none = 0xFFFF;
  static constexpr uint64_t never = ~uint64_t{0};
  bool holding(int port, uint64_t now) const { return left_ps_[port] != never && now - left_ps_[port] < cfg_.hold_ps; }
  struct pinned {
    uint64_t placed_ps = 0, last_ps = 0;
    uint64_t salt = 0;
    uint32_t dst = 0, src = 0;
    uint16_t port = none, in_port = none;
    bool moved = false;  // placed by a reroute, not the flow's first choice
  };
  void place(pinned& r, int port, uint64_t now_ps);
  uint32_t active_on(int port, uint64_t now_ps) const;
  int cheapest(const std::vector<uint16_t>& ports, const frame_fields& f, int in_port, uint64_t now_ps,
               uint64_t salt) const;
  int better_port(const pinned& r, uint32_t flow_id, uint64_t now_ps) const;
  std::vector<pinned> flows_;      // by flow id: grows to the flows this switch routes, then stays
  std::vector<uint64_t> left_ps_;  // by port: when a flow last left it
  uint64_t reroutes_ = 0;
};

}  // namespace sluice
