// Forwarding policy "adaptive-local": the switch's own view decides. A port costs the bytes
// queued there in the frame's class, and a class that may not send now (PFC pause, no
// InfiniBand credit) costs more than any queue. A pinned flow (per flow or flowlet) leaves its
// port when the class is held back there or its queue passes ar.queue_threshold. This is the
// adaptive routing InfiniBand and AI Ethernet switches ship (docs/adaptive-routing.md).
#include "models/switch/adaptive_steering.h"
#include "models/switch/switch_policies.h"

namespace sluice {
namespace {
class adaptive_local_path final : public steering_selector {
  static constexpr uint64_t held_back = uint64_t{1} << 40;
  uint64_t cost(int port, const frame_fields& f, uint64_t now) const override {
    const uint64_t q = view_->queue_bytes(port, f);
    return view_->blocked(port, f, now) ? held_back + q : q;
  }
  bool local_congestion(int, const frame_fields&, uint64_t) const override { return false; }
  bool should_leave(int port, const frame_fields& f, uint64_t, uint64_t now) const override {
    return view_->blocked(port, f, now) || view_->queue_bytes(port, f) > cfg_.queue_threshold;
  }
};
const policy_registrar<forwarding_policies> reg{
    "adaptive-local",
    "least-loaded of the equal-cost ports by this switch's own egress queue and pause or credit state (per "
    "ar.granularity; ar.queue_threshold, ar.hold)",
    [] { return std::make_unique<adaptive_local_path>(); }};
}  // namespace
}  // namespace sluice
