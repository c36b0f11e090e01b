// Congestion point "dcqcn": RED-style ECN marking (red_marking, dcqcn_cp.h) of data frames as they
// leave their egress queue, on the queue depth they leave behind: probability 0 up to
// prio<k>.ecn.kmin, rising linearly to prio<k>.ecn.pmax at prio<k>.ecn.kmax, 1 above. Every data
// frame is taken as ECN-capable (the NICs do not model ECT; as ecn-threshold). The draws come
// from the queue's own stream, seeded with derive_seed(run seed, "<port>.prio<k>.cp"): runs are
// deterministic and no other user's draws move. Counts marks in <port>.prio<k>.ecn_marked.
#include "models/cc/dcqcn/dcqcn_cp.h"

#include <string>

#include "models/cc/congestion_point.h"
#include "models/core/random.h"
#include "models/core/stats.h"

namespace sluice {
namespace {
class dcqcn_cp final : public congestion_point_if {
 public:
  dcqcn_cp(const sc_core::sc_object& port, int cls)
      : port_(&port),
        cls_(cls),
        scope_("prio" + std::to_string(cls)),
        draws_(random_streams::instance().seed_for(std::string(port.name()) + "." + scope_ + ".cp")) {}
  void on_enqueue(packet_header&, const queue_view&) override {}
  void on_dequeue(packet_header& h, const queue_view& q) override {
    if (h.ecn == 3) return;  // marked upstream already
    const red_marking red{kmin_().bytes, kmax_().bytes, pmax_()};
    if (q.bytes <= red.kmin) return;  // no draw below Kmin: the stream moves only under congestion
    if (red.mark(q.bytes, draws_.uniform())) {
      h.ecn = 3;
      ++marked_;
    }
  }
  void check(uint64_t) const override {
    if (kmax_().bytes < kmin_().bytes)
      throw config_error(kmin_.name() + ": " + format_bytes(kmin_()) + " is above " + kmax_.name() + " (" +
                         format_bytes(kmax_()) + ")");
  }

 private:
  const sc_core::sc_object* port_;  // first: the parameters below are declared under it, at class cls_
  int cls_;
  std::string scope_;  // "prio3": the statistic's scope, kept for the registry
  random_stream draws_;
  // Defaults: the DCQCN paper's at 40 Gb/s (Kmin 5 KB, Kmax 200 KB, Pmax 1 %; [DCQCN], [CoNEXT16]).
  param<byte_count> kmin_{port_,
                          [] {
                            return param_spec<byte_count>{"ecn.kmin",
                                                          "dcqcn: queue depth where ECN marking starts (paper: 5 KB)",
                                                          byte_count{5000},
                                                          byte_count{0},
                                                          byte_count{1ull << 36},
                                                          param_change::live};
                          },
                          cls_};
  param<byte_count> kmax_{port_,
                          [] {
                            return param_spec<byte_count>{"ecn.kmax",
                                                          "dcqcn: queue depth where the marking probability reaches "
                                                          "pmax; above it every frame is marked (paper: 200 KB)",
                                                          byte_count{200000},
                                                          byte_count{0},
                                                          byte_count{1ull << 36},
                                                          param_change::live};
                          },
                          cls_};
  param<double> pmax_{port_,
                      [] {
                        return param_spec<double>{"ecn.pmax", "dcqcn: marking probability at kmax (paper: 0.01)",
                                                  0.01,       0.0,
                                                  1.0,        param_change::live};
                      },
                      cls_};
  stat_counter marked_{
      port_, scope_.c_str(), [] {
        return stat_desc{"ecn_marked", "frames", "data frames marked CE by the dcqcn congestion point", nullptr};
      }};
};

const policy_registrar<cp_policies> reg{
    "dcqcn", "DCQCN: RED-style ECN marking on dequeue between prio<k>.ecn.kmin and ecn.kmax (ecn.pmax)",
    [](const sc_core::sc_object& port, int cls, frame_injector_if&) { return std::make_unique<dcqcn_cp>(port, cls); }};
}  // namespace
}  // namespace sluice
