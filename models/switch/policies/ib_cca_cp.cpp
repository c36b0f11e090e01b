// Congestion point "ib-cca": the switch side of IB CCA (IBTA A10; DEFAULTS.md §3.1), per port
// and VL. The queue is congested from when it reaches prio<k>.cca.threshold bytes until it falls
// below threshold - cca.hysteresis. While congested, a data frame leaving it is eligible for FECN
// if it is at least cca.packet_size; one eligible frame in cca.marking_rate + 1 is marked (0:
// every one; the specification's mean, made deterministic). A port whose VL is starved for
// credit at that moment is a victim of congestion further on, not its root: it marks only if
// its cca.victim bit is set (the Victim_Mask). The threshold is in bytes here: the
// specification's 0-15 scale maps to a depth in an implementation-defined way.
// Counts its marks in <port>.prio<k>.cca.fecn_marks.
#include <string>

#include "models/core/stats.h"
#include "models/switch/switch_policies.h"
#include "models/switch/switch_port.h"

namespace sluice {
namespace {
const param_spec<byte_count> threshold_spec{"cca.threshold", "ib-cca: queue depth where the VL becomes congested",
                                            byte_count{16 * 1024}, byte_count{64}, byte_count{1ull << 30}};
const param_spec<byte_count> hysteresis_spec{
    "cca.hysteresis", "ib-cca: the VL stays congested until its queue falls this far below the threshold",
    byte_count{0}, byte_count{0}, byte_count{1ull << 30}};
const param_spec<uint64_t> rate_spec{"cca.marking_rate",
                                     "ib-cca: eligible frames left unmarked between two FECN marks (0: mark all)", 0, 0,
                                     65535};
const param_spec<byte_count> size_spec{"cca.packet_size", "ib-cca: smaller frames are never marked (1 credit)",
                                       byte_count{64}, byte_count{0}, byte_count{16384}};
const param_spec<bool> victim_spec{"cca.victim", "ib-cca: mark even while this VL waits for credit (Victim_Mask)",
                                   false, false, true};

class cca_cp final : public congestion_point_if {
 public:
  cca_cp(const sc_core::sc_object& port, int cls)
      : threshold_(&port, threshold_spec, cls),
        hysteresis_(&port, hysteresis_spec, cls),
        rate_(&port, rate_spec, cls),
        size_(&port, size_spec, cls),
        victim_(&port, victim_spec, cls),
        credits_(dynamic_cast<const switch_port*>(&port) ? dynamic_cast<const switch_port&>(port).credits.get()
                                                         : nullptr),
        cls_(cls),
        scope_("prio" + std::to_string(cls)) {
    static const stat_desc stats[] = {
        {"cca.fecn_marks", "frames", "data frames this VL's queue marked FECN (ib-cca)",
         [](const void* m, int) { return static_cast<double>(stat_model<cca_cp>(m).marks_); }},
    };
    stat_registry::instance().add(&port, scope_.c_str(), stats, 1, this);
  }
  void on_enqueue(packet_header&, const queue_view& q) override { update(q.bytes); }
  void on_dequeue(packet_header& h, const queue_view& q) override {
    update(q.bytes);
    if (!congested_ || h.size < size_().bytes) return;
    if (credits_ && credits_->starved(cls_) && !victim_()) return;  // a victim, not the root
    if (unmarked_ < rate_()) {
      ++unmarked_;
      return;
    }
    unmarked_ = 0;
    h.flags |= frame_flags::fecn;
    ++marks_;
  }

 private:
  void update(uint64_t bytes) {
    const uint64_t on = threshold_().bytes, off = on - std::min(on, hysteresis_().bytes);
    if (bytes >= on) congested_ = true;
    else if (bytes < off) congested_ = false;
  }
  param<byte_count> threshold_, hysteresis_;
  param<uint64_t> rate_;
  param<byte_count> size_;
  param<bool> victim_;
  const credit_flow_control* credits_;
  int cls_;
  std::string scope_;  // "prio3": the statistic's scope, kept for the registry
  bool congested_ = false;
  uint64_t unmarked_ = 0, marks_ = 0;
};

const policy_registrar<cp_policies> reg{
    "ib-cca", "IB CCA switch: FECN on frames leaving a VL queue above prio<k>.cca.threshold (cca.*)",
    [](const sc_core::sc_object& port, int cls, frame_injector_if&) { return std::make_unique<cca_cp>(port, cls); }};
}  // namespace
}  // namespace sluice
