// Congestion point "pcn": PCN's NP-ECN (np_ecn, pcn_cp.h) on one egress queue. A departing data
// frame is marked CE unless it is one of the frames that were waiting when the class last
// resumed from a pause (PN), and then only if it found another frame queued ahead of it (zero
// threshold; the frame on the wire and frames still in the pipeline do not count).
// Every data frame is taken as ECN-capable (ECT is not modelled; as ecn-threshold). Counts marks
// in <port>.prio<k>.pcn.ecn_marked and the frames spared by PN in pcn.pn_spared.
#include "models/cc/pcn/pcn_cp.h"

#include <string>

#include "models/cc/congestion_point.h"
#include "models/core/event_queue.h"
#include "models/core/stats.h"

namespace sluice {
namespace {
class pcn_cp final : public congestion_point_if {
 public:
  pcn_cp(const sc_core::sc_object& port, int cls) : port_(&port), scope_("prio" + std::to_string(cls) + ".pcn") {}
  void on_enqueue(packet_header&, const queue_view&) override {}
  void on_dequeue(packet_header& h, const queue_view& q) override {
    const uint64_t now = now_ps();
    const uint64_t off_end = q.gate ? q.gate->off_end_ps(q.cls, now) : 0;
    const bool spared = state_.pn() > 0 || off_end > seen_;
    seen_ = off_end;
    // The zero threshold of the traditional enqueue-time method, the frame on the wire not
    // counted: the frame found the queue non-empty iff the one ahead of it had not yet started
    // when it cleared the pipeline (frames still in the pipeline are not queued yet).
    const bool behind = h.ready_ps < last_start_ps_;
    last_start_ps_ = now;
    if (state_.on_dequeue(off_end, q.frames + 1, behind)) {
      if (h.ecn != 3) ++marked_;
      h.ecn = 3;
    } else if (spared) {
      ++spared_;
    }
  }

 private:
  const sc_core::sc_object* port_;  // first: the counters below are registered under it
  std::string scope_;               // "prio3.pcn": the statistics' scope, kept for the registry
  np_ecn state_;
  uint64_t seen_ = 0;
  uint64_t last_start_ps_ = 0;  // when the previous data frame of this class left
  stat_counter marked_{port_, scope_.c_str(), [] {
                         return stat_desc{"ecn_marked", "frames",
                                          "data frames marked CE by NP-ECN (waited in a queue not drained by a resume)",
                                          nullptr};
                       }};
  stat_counter spared_{
      port_, scope_.c_str(), [] {
        return stat_desc{"pn_spared", "frames",
                         "data frames left unmarked because they were waiting when the class resumed (PN)", nullptr};
      }};
};

const policy_registrar<cp_policies> reg{
    "pcn", "PCN: NP-ECN (frames waiting at a resume leave unmarked, later ones CE when the queue is not empty)",
    [](const sc_core::sc_object& port, int cls, frame_injector_if&) { return std::make_unique<pcn_cp>(port, cls); }};
}  // namespace
}  // namespace sluice
