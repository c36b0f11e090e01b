// Congestion point "ib-cca": the switch side of IB CCA (IBTA A10 SwitchCongestionSetting, [IBTA-A10]), per port
// and VL. The queue is congested from when it reaches prio<k>.cca.threshold bytes until it falls
// below threshold - cca.hysteresis. While congested, a data frame leaving it is eligible for FECN
// if it is at least cca.packet_size; one eligible frame in cca.marking_rate + 1 is marked (0:
// every one; the specification's mean, made deterministic). A port whose output is blocked by
// lack of credit is a victim of congestion further on, not its root: it marks only if its
// cca.victim bit is set (the Victim_Mask). Whether it is blocked is read from its credit state
// over the recent interval (the VL starved for at least cca.victim_share of the last
// cca.victim_interval to 2 x cca.victim_interval), not at the instant a frame leaves: a frame
// leaves only when credit lets it, so a starved VL is never starved at that instant. The
// threshold is in bytes here: the
// specification's 0-15 scale maps to a depth in an implementation-defined way.
// Counts its marks in <port>.prio<k>.cca.fecn_marks.
#include <string>

#include "models/cc/congestion_point.h"
#include "models/core/event_queue.h"
#include "models/core/stats.h"
#include "models/link/credit_flow_control.h"

namespace sluice {
namespace {
class cca_cp final : public congestion_point_if {
 public:
  cca_cp(const sc_core::sc_object& port, int cls) : port_(&port), cls_(cls), scope_("prio" + std::to_string(cls)) {}
  void on_enqueue(packet_header&, const queue_view& q) override { update(q.bytes); }
  void on_dequeue(packet_header& h, const queue_view& q) override {
    update(q.bytes);
    if (!gate_seen_) {  // an InfiniBand port's gate is its credit flow control
      credits_ = dynamic_cast<const credit_flow_control*>(q.gate);
      gate_seen_ = true;
    }
    const bool victim = credits_ && is_victim(now_ps());  // every departure keeps the window recent
    if (!congested_ || h.size < size_().bytes) return;
    if (victim && !victim_()) {  // a victim, not the root
      ++spared_;
      return;
    }
    if (unmarked_ < rate_()) {
      ++unmarked_;
      return;
    }
    unmarked_ = 0;
    h.flags |= frame_flags::fecn;
    ++marks_;
  }

 private:
  // Starved for credit at least victim_share of [window start, now], the window at least one
  // victim_interval long (two at most while frames leave): the credit state over the recent
  // interval. A VL starved through a long gap between departures is measured over the gap.
  bool is_victim(uint64_t now) {
    const uint64_t blocked = credits_->blocked_ps(cls_, now);
    if (now - start_ps_ >= to_ps(victim_interval_())) {
      prev_start_ps_ = start_ps_;
      prev_blocked_ps_ = start_blocked_ps_;
      start_ps_ = now;
      start_blocked_ps_ = blocked;
    }
    const uint64_t span = now - prev_start_ps_;
    return span > 0 && static_cast<double>(blocked - prev_blocked_ps_) >= victim_share_() * static_cast<double>(span);
  }
  void update(uint64_t bytes) {
    const uint64_t on = threshold_().bytes, off = on - std::min(on, hysteresis_().bytes);
    if (bytes >= on)
      congested_ = true;
    else if (bytes < off)
      congested_ = false;
  }
  const sc_core::sc_object* port_;  // first: the parameters below are declared under it, at class cls_
  int cls_;
  std::string scope_;  // "prio3": the statistic's scope, kept for the registry
  param<byte_count> threshold_{port_,
                               [] {
                                 return param_spec<byte_count>{
                                     "cca.threshold", "ib-cca: queue depth where the VL becomes congested",
                                     byte_count{16 * 1024}, byte_count{64}, byte_count{1ull << 30}};
                               },
                               cls_};
  param<byte_count> hysteresis_{
      port_,
      [] {
        return param_spec<byte_count>{
            "cca.hysteresis", "ib-cca: the VL stays congested until its queue falls this far below the threshold",
            byte_count{0}, byte_count{0}, byte_count{1ull << 30}};
      },
      cls_};
  param<uint64_t> rate_{port_,
                        [] {
                          return param_spec<uint64_t>{
                              "cca.marking_rate",
                              "ib-cca: eligible frames left unmarked between two FECN marks (0: mark all)", 0, 0,
                              65535};
                        },
                        cls_};
  param<byte_count> size_{port_,
                          [] {
                            return param_spec<byte_count>{"cca.packet_size",
                                                          "ib-cca: smaller frames are never marked (1 credit)",
                                                          byte_count{64}, byte_count{0}, byte_count{16384}};
                          },
                          cls_};
  param<bool> victim_{port_,
                      [] {
                        return param_spec<bool>{
                            "cca.victim",
                            "ib-cca: mark even when this VL is a victim, starved for credit (the Victim_Mask bit)",
                            false, false, true};
                      },
                      cls_};
  param<sc_core::sc_time> victim_interval_{
      port_,
      [] {
        return param_spec<sc_core::sc_time>{"cca.victim_interval",
                                            "ib-cca: the recent interval over which a VL's credit starvation makes it "
                                            "a victim (ours: four credit update intervals of 4.096 us)",
                                            sc_core::sc_time(16384, sc_core::SC_NS),
                                            sc_core::sc_time(1, sc_core::SC_NS), sc_core::sc_time(1, sc_core::SC_SEC)};
      },
      cls_};
  param<double> victim_share_{
      port_,
      [] {
        return param_spec<double>{
            "cca.victim_share",
            "ib-cca: a VL starved for credit at least this share of the recent interval is a victim, not a root (ours: "
            "a quarter, above what a root whose receiver's buffer falls short of the loop shows)",
            0.25, 1e-3, 1.0};
      },
      cls_};
  const credit_flow_control* credits_ = nullptr;  // the port's gate, if credits (first dequeue)
  bool gate_seen_ = false;
  bool congested_ = false;
  uint64_t unmarked_ = 0;
  stat_counter marks_{
      port_, scope_.c_str(), [] {
        return stat_desc{"cca.fecn_marks", "frames", "data frames this VL's queue marked FECN (ib-cca)", nullptr};
      }};
  stat_counter spared_{
      port_, scope_.c_str(), [] {
        return stat_desc{
            "cca.victim_spared", "frames",
            "eligible data frames left unmarked because this VL was a victim (starved for credit; cca.victim off)",
            nullptr};
      }};
  // The two windows of is_victim: when each began and the VL's starved time then.
  uint64_t prev_start_ps_ = 0, prev_blocked_ps_ = 0, start_ps_ = 0, start_blocked_ps_ = 0;
};

const policy_registrar<cp_policies> reg{
    "ib-cca", "IB CCA switch: FECN on frames leaving a VL queue above prio<k>.cca.threshold (cca.*)",
    [](const sc_core::sc_object& port, int cls, frame_injector_if&) { return std::make_unique<cca_cp>(port, cls); }};
}  // namespace
}  // namespace sluice
