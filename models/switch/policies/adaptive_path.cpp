// Forwarding policy "adaptive": QCN-based switch adaptive routing ([L2CC-tutorial], Minkenberg,
// Gusat, Rodriguez [SwitchAR]). The switch snoops the congestion notifications it forwards
// upstream (QCN CNMs, RoCE CNPs, InfiniBand BECNs) and those its own congestion points make, and
// enters each in its congestion table under (the flow's destination, the port the flow takes
// here). A port's cost for a destination is nothing while its entry is not congested (aged out
// after ar.aging), else its severity, then its notification count. A pinned flow leaves its port
// when a notification about that port arrived after the flow was placed there.
#include <algorithm>

#include "models/switch/adaptive_steering.h"
#include "models/switch/switch_policies.h"

namespace sluice {
namespace {
class adaptive_path final : public steering_selector {
  static constexpr uint64_t quiet = uint64_t{1} << 48;  // costs below: no congestion in the table
  // Packed so that comparing costs compares, in order: this destination's congestion (severity,
  // then notification count), whether the port is congested for another destination, and the
  // bytes queued there (the switch's own view breaks the ties of the table's).
  uint64_t cost(int port, const frame_fields& f, uint64_t now) const override {
    const uint64_t queued = std::min<uint64_t>(view_->queue_bytes(port, f), quiet - 1);
    const congestion_entry& e = table_.at(f.dst, port);
    if (e.congested(now, cfg_.aging_ps))
      return (uint64_t{e.severity} + 1) << 56 | uint64_t{std::min<uint32_t>(e.fb_count, 0x7F)} << 49 | quiet | queued;
    return table_.port_congested(port, now, cfg_.aging_ps) ? quiet | queued : queued;
  }
  bool should_leave(int port, const frame_fields& f, uint64_t placed_ps, uint64_t now) const override {
    const congestion_entry& e = table_.at(f.dst, port);
    return e.congested(now, cfg_.aging_ps) && e.last_ps > placed_ps;
  }
  bool local_congestion(int port, const frame_fields& f, uint64_t now) const override {
    const congestion_entry& e = table_.at(f.dst, port);
    return e.congested(now, cfg_.aging_ps) && e.local;
  }
  bool quiet_port(int port, const frame_fields& f, uint64_t now) const override { return cost(port, f, now) < quiet; }
  bool snoops() const override { return true; }
  bool on_notification(const frame_fields& f, uint16_t severity, bool local, uint64_t now) override {
    uint32_t dst = 0;
    const int port = pinned_port(f.flow_id, dst);
    if (port < 0) {
      ++unmatched_;
      return false;
    }
    table_.note(dst, port, severity, local, now, cfg_.aging_ps);
    ++snooped_;
    // The tutorial's order: reroute the hot flow if an uncongested port exists; only if none
    // does, let the notification reach the source and cut its rate.
    if (!cfg_.absorb || !steer_away(f.flow_id, now)) return false;
    ++absorbed_;
    return true;
  }
};
const policy_registrar<forwarding_policies> reg{
    "adaptive",
    "switch adaptive routing from snooped congestion notifications: the least-congested equal-cost port by the "
    "congestion table (ar.aging, ar.granularity, ar.hold)",
    [] { return std::make_unique<adaptive_path>(); }};
}  // namespace
}  // namespace sluice
