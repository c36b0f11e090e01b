// Congestion point "ecn-threshold": marks ECN CE (code point 3) on a data frame as it leaves its
// egress queue when the queue it leaves behind holds more than <port>.prio<k>.ecn.kmin bytes (a
// step marker, DCTCP-style K). Every data frame is marked, ECN-capable or not: the NICs do not
// model ECT. Counts its marks in <port>.prio<k>.ecn_marked.
#include <string>

#include "models/cc/congestion_point.h"
#include "models/core/stats.h"

namespace sluice {
namespace {
class ecn_threshold final : public congestion_point_if {
 public:
  ecn_threshold(const sc_core::sc_object& port, int cls)
      : port_(&port), cls_(cls), scope_("prio" + std::to_string(cls)) {}
  void on_enqueue(packet_header&, const queue_view&) override {}
  void on_dequeue(packet_header& h, const queue_view& q) override {
    if (q.bytes > kmin_().bytes) {
      h.ecn = 3;
      ++marked_;
    }
  }

 private:
  const sc_core::sc_object* port_;  // first: what follows is declared under it, at class cls_
  int cls_;
  std::string scope_;  // "prio3": the statistic's scope, kept for the registry
  param<byte_count> kmin_{port_,
                          [] {
                            return param_spec<byte_count>{"ecn.kmin",
                                                          "ecn-threshold: mark CE on dequeue above this queue depth",
                                                          byte_count{40 * 1024},
                                                          byte_count{0},
                                                          byte_count{1ull << 36},
                                                          param_change::live};
                          },
                          cls_};
  stat_counter marked_{port_, scope_.c_str(), [] {
                         return stat_desc{"ecn_marked", "frames",
                                          "data frames marked CE by the ecn-threshold congestion point", nullptr};
                       }};
};

const policy_registrar<cp_policies> reg{"ecn-threshold",
                                        "mark ECN CE on dequeue while the queue exceeds prio<k>.ecn.kmin",
                                        [](const sc_core::sc_object& port, int cls, frame_injector_if&) {
                                          return std::make_unique<ecn_threshold>(port, cls);
                                        }};
}  // namespace
}  // namespace sluice
