// Congestion point "tcd": TCD's ternary detector (tcd_detector, tcd_cp.h) on one egress queue,
// marking departing data frames UE or CE in their ECN bits (on an InfiniBand port: CE as FECN, UE
// in a reserved BTH bit, tcd_mark_bth). Its queue is the frames waiting in the egress queue,
// without those still in the switch pipeline (queue_view::bytes, as every congestion point). max(Ton) comes from the
// ON-OFF model and the port's own flow-control loop (flow_control_if::on_off: for PFC the port's XON hysteresis, 2 x
// propagation + response + a PFC frame, and the link rate; for credits one block, min_interval + 2 x propagation + a
// credit packet, and the link rate) unless prio<k>.tcd.max_ton sets it; it is computed at the first departure, when the
// overrides are final. Statistics under <port>.prio<k>.tcd: entries into each state, time in each, UE/CE marks, the ON
// periods it measured and the max(Ton) it uses.
#include "models/cc/tcd/tcd_cp.h"

#include <string>

#include "models/cc/congestion_point.h"
#include "models/cc/dcqcn/dcqcn_cp.h"
#include "models/core/event_queue.h"
#include "models/core/params.h"
#include "models/core/random.h"
#include "models/core/stats.h"

namespace sluice {
namespace {
using sc_core::sc_time;
double ns(uint64_t ps) { return static_cast<double>(ps) / 1e3; }

class tcd_cp final : public congestion_point_if {
 public:
  tcd_cp(const sc_core::sc_object& port, int cls)
      : port_(&port),
        cls_(cls),
        scope_("prio" + std::to_string(cls) + ".tcd"),
        draws_(random_streams::instance().seed_for(std::string(port.name()) + ".prio" + std::to_string(cls) + ".cp")) {
    // RED's thresholds mark only with ce_marking = red.
    for (param_base* p : std::initializer_list<param_base*>{&kmin_, &kmax_, &pmax_})
      p->inert_when(
          [](const void* cp, const param_base&) -> std::string {
            const choice_param& marking = static_cast<const tcd_cp*>(cp)->ce_marking_;
            return marking() == "red" ? "" : marking.name() + " is '" + marking() + "', not 'red'";
          },
          this);
    using S = tcd_state;
    static const stat_desc stats[] = {
        {"to_congestion", "transitions", "entries into the congestion state",
         [](const void* m, int) { return static_cast<double>(det(m).entries(S::congestion)); }, stat_kind::counter},
        {"to_undetermined", "transitions", "entries into the undetermined state",
         [](const void* m, int) { return static_cast<double>(det(m).entries(S::undetermined)); }, stat_kind::counter},
        {"to_non_congestion", "transitions", "entries into the non-congestion state",
         [](const void* m, int) { return static_cast<double>(det(m).entries(S::non_congestion)); }, stat_kind::counter},
        {"time_congestion", "ns", "time in the congestion state",
         [](const void* m, int) { return ns(det(m).time_in_ps(S::congestion, now_ps())); }, stat_kind::counter},
        {"time_undetermined", "ns", "time in the undetermined state",
         [](const void* m, int) { return ns(det(m).time_in_ps(S::undetermined, now_ps())); }, stat_kind::counter},
        {"ce_marked", "frames", "data frames marked CE (11) in the congestion state",
         [](const void* m, int) { return static_cast<double>(stat_model<tcd_cp>(m).ce_); }, stat_kind::counter},
        {"ue_marked", "frames", "data frames marked UE (10) in the undetermined state",
         [](const void* m, int) { return static_cast<double>(stat_model<tcd_cp>(m).ue_); }, stat_kind::counter},
        {"on_periods", "periods", "complete ON periods measured (between two OFF periods)",
         [](const void* m, int) { return static_cast<double>(det(m).on_periods()); }, stat_kind::counter},
        {"on_mean", "ns", "mean measured ON period (end of an OFF period to the last departure before the next)",
         [](const void* m, int) {
           const tcd_detector& d = det(m);
           return d.on_periods() ? ns(d.on_sum_ps()) / static_cast<double>(d.on_periods()) : 0.0;
         }},
        {"on_max", "ns", "longest measured ON period", [](const void* m, int) { return ns(det(m).on_max_ps()); }},
        {"max_ton", "ns", "max(Ton) in use (derived or set), known from the first departure",
         [](const void* m, int) { return ns(stat_model<tcd_cp>(m).config_.max_ton_ps); }},
    };
    stat_registry::instance().add(&port, scope_.c_str(), stats, sizeof stats / sizeof stats[0], this);
  }
  void on_enqueue(packet_header&, const queue_view&) override {}
  void on_dequeue(packet_header& h, const queue_view& q) override {
    const uint64_t now = now_ps();
    if (!configured_) configure(q);
    const uint64_t off_end = q.gate ? q.gate->off_end_ps(q.cls, now) : 0;
    // TCD's queue is the egress queue the port drains (the paper's port queue; the authors' ns-3
    // has no pipeline): frames still in the switch pipeline have not joined it yet.
    const uint64_t queued = q.bytes;
    tcd_state s = detector_.on_dequeue(config_, now, off_end, queued);
    if (s == tcd_state::congestion && red_) {  // CE only with RED's probability; no draw below kmin
      const red_marking red{kmin_().bytes, kmax_().bytes, pmax_()};
      if (queued <= red.kmin || !red.mark(queued, draws_.uniform())) s = tcd_state::non_congestion;
    }
    if (bth_) {  // InfiniBand: FECN and a reserved BTH bit
      const uint8_t before = h.flags;
      tcd_mark_bth(h.flags, s);
      ce_ += (h.flags & frame_flags::fecn) && !(before & frame_flags::fecn);
      ue_ += (h.flags & frame_flags::tcd_ue) && !(before & frame_flags::tcd_ue);
      return;
    }
    const uint8_t before = h.ecn;
    tcd_mark(h.ecn, s);
    ce_ += h.ecn == ecn_ce && before != ecn_ce;
    ue_ += h.ecn == ecn_ue && before != ecn_ue;
  }
  int state() const override { return static_cast<int>(detector_.state()); }
  void check(uint64_t) const override {
    if (kmax_().bytes < kmin_().bytes)
      throw config_error(kmin_.name() + ": " + format_bytes(kmin_()) + " is above " + kmax_.name() + " (" +
                         format_bytes(kmax_()) + ")");
    if (high_().bytes < low_().bytes)
      throw config_error(low_.name() + ": " + format_bytes(low_()) + " is above " + high_.name() + " (" +
                         format_bytes(high_()) + ")");
  }

 private:
  static const tcd_detector& det(const void* m) { return stat_model<tcd_cp>(m).detector_; }
  void configure(const queue_view& q) {
    configured_ = true;
    uint64_t max_ton = to_ps(max_ton_());
    if (max_ton == 0 && q.gate) {
      const flow_control_if::on_off_loop loop = q.gate->on_off(q.cls);
      if (loop.rate_bps > 0) max_ton = tcd_max_ton_ps(loop.gap_bytes, loop.tau_ps, loop.rate_bps, eps_());
    }
    const uint64_t period = to_ps(period_());
    config_ = {max_ton, period ? period : max_ton, high_().bytes, low_().bytes};
    red_ = ce_marking_() == "red";
    bth_ = q.gate && q.gate->layer() == link_layer::ib;
  }

  const sc_core::sc_object* port_;  // first: the parameters below are declared under it, at class cls_
  int cls_;
  std::string scope_;    // "prio3.tcd": the statistics' scope, kept for the registry
  random_stream draws_;  // ce_marking=red: as dcqcn's, seeded "<port>.prio<k>.cp"
  param<double> eps_{port_,
                     [] {
                       return param_spec<double>{
                           "tcd.epsilon",
                           "tcd: congestion degree eps of the ON-OFF model that max(Ton) covers (paper: 0.05)", 0.05,
                           1e-4, 1.0};
                     },
                     cls_};
  param<sc_time> max_ton_{port_,
                          [] {
                            return param_spec<sc_time>{
                                "tcd.max_ton",
                                "tcd: ON periods shorter than this mean an ON-OFF pattern (undetermined); 0: derived "
                                "from the ON-OFF model and the port's flow-control loop",
                                sc_core::SC_ZERO_TIME, sc_core::SC_ZERO_TIME, sc_time(1, sc_core::SC_SEC)};
                          },
                          cls_};
  param<sc_time> period_{port_,
                         [] {
                           return param_spec<sc_time>{
                               "tcd.period", "tcd: queue-trend check period T; 0: max(Ton) (the authors' ns-3 setting)",
                               sc_core::SC_ZERO_TIME, sc_core::SC_ZERO_TIME, sc_time(1, sc_core::SC_SEC)};
                         },
                         cls_};
  param<byte_count> high_{
      port_,
      [] {
        return param_spec<byte_count>{
            "tcd.high",
            "tcd: congestion needs the queue above this and not below its level a period earlier (ours: DCQCN's Kmin)",
            byte_count{5000}, byte_count{0}, byte_count{1ull << 36}};
      },
      cls_};
  param<byte_count> low_{
      port_,
      [] {
        return param_spec<byte_count>{
            "tcd.low", "tcd: non-congestion when the queue falls to this (about two frames, the authors' ns-3 setting)",
            byte_count{2000}, byte_count{0}, byte_count{1ull << 36}};
      },
      cls_};
  choice_param ce_marking_{port_,
                           [] {
                             return choice_spec{
                                 "tcd.ce_marking",
                                 "tcd: CE in the congestion state on every frame (the paper's Table 1) or with DCQCN's "
                                 "RED probability between tcd.kmin and tcd.kmax (tcd.pmax)",
                                 "all",
                                 {"all", "red"}};
                           },
                           cls_};
  param<byte_count> kmin_{port_,
                          [] {
                            return param_spec<byte_count>{"tcd.kmin",
                                                          "tcd: ce_marking=red: RED marking starts here (DCQCN: 5 KB)",
                                                          byte_count{5000}, byte_count{0}, byte_count{1ull << 36}};
                          },
                          cls_};
  param<byte_count> kmax_{port_,
                          [] {
                            return param_spec<byte_count>{
                                "tcd.kmax", "tcd: ce_marking=red: probability pmax here, 1 above (DCQCN: 200 KB)",
                                byte_count{200000}, byte_count{0}, byte_count{1ull << 36}};
                          },
                          cls_};
  param<double> pmax_{port_,
                      [] {
                        return param_spec<double>{"tcd.pmax",
                                                  "tcd: ce_marking=red: marking probability at kmax (DCQCN: 0.01)",
                                                  0.01, 0.0, 1.0};
                      },
                      cls_};
  bool configured_ = false, red_ = false, bth_ = false;  // bth_: an IB port (code points in the BTH)
  tcd_config config_;
  tcd_detector detector_;
  uint64_t ce_ = 0, ue_ = 0;
};

const policy_registrar<cp_policies> reg{
    "tcd", "TCD: ternary detection (non-congestion / undetermined / congestion), UE and CE in the ECN bits (tcd.*)",
    [](const sc_core::sc_object& port, int cls, frame_injector_if&) { return std::make_unique<tcd_cp>(port, cls); }};
}  // namespace
}  // namespace sluice
