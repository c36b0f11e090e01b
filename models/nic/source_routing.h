// Source adaptive routing, R3C2 ([R3C2]; [L2CC-tutorial] "R³C²: Reactive Route & Rate Control"):
// the sending NIC, not the switches, chooses each data frame's path, by a path id that the
// switches honour (the frame's `path`, one tree per id, as one spanning tree per VLAN), and
// keeps a rate limiter per path, driven by that path's own reaction point.
//
// A flow starts on one path, d-mod-k's (the destination's NIC index mod the path count): with no
// overload it is routed deterministically. A congestion notification names the path of the frame
// it is about; it marks that path hot for r3c2.aging and goes to the path's reaction point, which
// cuts that path's limiter only. When no active path of the flow is cool any more, the NIC
// activates another path that no notification marked hot (up to r3c2.max_active paths), unless
// the hotspot is one no path avoids: a CNM whose congestion point (CPID) a CNM about another
// active path named too (the destination's last hop, typically) activates nothing. Each
// frame takes the first eligible path (its limiter lets it send now) in the order: cool paths
// before hot ones, then the order of activation; so traffic leaves a hot path at once, and a
// rate-limited path keeps the share its limiter allows while the rest goes to the next one
// ("packet assigned the VLAN# of the 1st eligible rate limiter").
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "models/cc/reaction_point.h"
#include "models/core/params.h"

namespace sluice {

// The NIC's settings, declared under it ("h0.routing", "h0.r3c2.*").
struct source_routing_params {
  explicit source_routing_params(const sc_core::sc_object* nic);
  choice_param routing;  // fabric (the switches choose) | r3c2
  param<uint64_t> paths;
  param<uint64_t> max_active;
  param<sc_core::sc_time> aging;
  param<bool> rate_control;
  bool on() const { return routing.index() == 1; }
};

// What the fabric tells a NIC about its paths: how many path ids its trees offer, and each
// destination's first path (by node id).
struct path_plan {
  uint32_t count = 1;
  std::vector<uint8_t> first_by_node;
};

// One flow's paths: a pacing limiter per path id behind one limiter the NIC's scheduler sees, and
// the flow's reaction point (the controller: it owns a reaction point per active path and
// decides which paths are active).
class multipath_flow final : public rate_limiter_if, public reaction_point_if {
 public:
  struct config {
    uint32_t paths = 1, max_active = 1;
    uint32_t first = 0;  // the first path, 0 .. paths-1
    uint64_t aging_ps = 0;
  };
  // maker: the NIC's reaction points (null: route only, no limiter is ever cut).
  multipath_flow(const flow& f, const config& c, reaction_point_maker* maker);

  // rate_limiter_if, as the NIC's scheduler sees the flow.
  void set_rate(data_rate r) override;  // from outside (a script): every path's limit
  data_rate rate() const override;      // the sum of the active paths' limits (0: one is unlimited)
  uint64_t next_send_ps() const override;
  void on_send(uint64_t now_ps, uint64_t bytes, data_rate source_rate) override;

  // reaction_point_if.
  void on_feedback(const packet_header& h, uint64_t now_ps) override;
  void on_send(const packet_header& h, uint64_t now_ps) override;
  void tag(packet_header& h) override;
  data_rate target_rate() const override;

  // For statistics and tests.
  const std::vector<uint8_t>& active() const { return active_; }  // path ids, in activation order
  const rate_limiter_if& path_limiter(uint32_t path) const { return paths_[path].limiter; }
  uint64_t frames_on(uint32_t path) const { return paths_[path].frames; }
  uint64_t activations() const { return activations_; }  // paths activated after the first
  uint64_t notifications() const { return notifications_; }

 private:
  struct path_state {
    pacing_limiter limiter;
    std::unique_ptr<reaction_point_if> rp;  // made at the path's first activation
    uint64_t hot_until_ps = 0;              // r3c2.aging after the latest notification about it
    uint64_t cpid = 0;                      // the congestion point the latest CNM about it named (0: none)
    uint64_t last_send_ps = 0;
    uint64_t frames = 0;
  };
  static bool hot(const path_state& p, uint64_t now) { return now < p.hot_until_ps; }
  void activate(uint32_t path, uint64_t now);
  void spread_from_hot(uint64_t now);
  bool shared_hotspot(uint32_t path, uint64_t cpid, uint64_t now) const;
  int pick(uint64_t now) const;  // the first eligible active path, -1: none

  const flow& flow_;
  config cfg_;
  reaction_point_maker* maker_;
  std::vector<path_state> paths_;
  std::vector<uint8_t> active_;
  uint32_t chosen_ = 0;  // the path of the frame being sent (on_send -> tag)
  pacing_limiter pace_;  // the flow's own pace (its configured rate) over all paths
  uint64_t activations_ = 0, notifications_ = 0;
};

}  // namespace sluice
