// Congestion point "qcn": IEEE 802.1Qau QCN at one egress queue (port, priority). It samples on
// enqueue (qcn_cp_state: randomized, |Fb|-dependent interval) and, when Fb < 0, sends a CNM
// (EtherType 0x22E7, the full PDU through encode_cnm) to the source of the sampled frame through
// the switch's frame_injector_if, outside MMU accounting. Parameters <port>.prio<k>.qcn.*,
// statistics <port>.prio<k>.qcn.{samples,cnm_sent,last_fb}, probe point
// <port>.prio<k>.qcn.sample (Fb at each sample). See docs/models/qcn.md.
#include <algorithm>
#include <string>

#include "models/cc/congestion_point.h"
#include "models/cc/qcn/cnm_maker.h"
#include "models/cc/qcn/qcn_cp_state.h"
#include "models/cc/qcn/qcn_settings.h"
#include "models/core/event_queue.h"
#include "models/core/param_cache.h"
#include "models/core/stats.h"
#include "models/protocol/ethernet.h"

namespace sluice {
namespace {
class qcn_cp final : public congestion_point_if {
 public:
  qcn_cp(const sc_core::sc_object& port, int cls, frame_injector_if& injector)
      : port_(&port),
        cls_(cls),
        scope_("prio" + std::to_string(cls) + ".qcn"),
        injector_(injector),
        state_(random_streams::instance().seed_for(std::string(port.name()) + "." + scope_)) {
    static const stat_desc last_fb[] = {
        {"last_fb", "bytes", "Fb of the last sample (negative: congestion)",
         [](const void* m, int) { return static_cast<double>(stat_model<qcn_cp>(m).last_fb_); }}};
    stat_registry::instance().add(&port, scope_.c_str(), last_fb, 1, this);
    // The bandwidth-available signal exists only for path_ba and sonar.
    for (param_base* p : std::initializer_list<param_base*>{&ba_threshold_, &ba_time_})
      p->inert_when(
          [](const void* cp, const param_base&) -> std::string {
            const qcn_cp& q = *static_cast<const qcn_cp*>(cp);
            return q.path_ba_() || q.sonar_() ? "" : q.path_ba_.name() + " and " + q.sonar_.name() + " are false";
          },
          this);
    config_.watch({&w_});
    probe_registry::instance().declare(probes::cp_sample, this, &port, scope_.c_str());
  }

  void on_enqueue(packet_header& h, const queue_view& q) override {
    const qcn_cp_config& c = config();
    const qcn_sample s = state_.on_arrival(h.size, q.bytes, c, now_ps());
    if (c.sonar && (h.flags & frame_flags::probe) && !state_.bandwidth_available(now_ps(), c)) {
      ++echoes_;
      qcn_sample echo;
      echo.q_offset = static_cast<int64_t>(q.bytes) - static_cast<int64_t>(c.qeq);
      send_cnm(h, q, echo);
    }
    if (!s.sampled) return;
    ++samples_;
    last_fb_ = s.fb;
    if (probes::cp_sample.on())
      probes::cp_sample.emit(this, now_ps(), &h.fields(), -1, cls_, static_cast<uint64_t>(s.fb));
    if (s.qfb == 0 && !s.push_back) return;
    if (s.push_back) ++fb99_;
    send_cnm(h, q, s);
  }
  void check(uint64_t buffer_bytes) const override { check_within_buffer(qeq_, cls_, buffer_bytes); }
  void on_dequeue(packet_header&, const queue_view& q) override {
    const qcn_cp_config& c = config();
    if (c.tracks_ba()) state_.on_depth(q.bytes, now_ps(), c);
  }

 private:
  // What every frame reads: packed at the first frame of the run, again after a live write (w).
  const qcn_cp_config& config() {
    return config_.get([this]() -> qcn_cp_config {
      return {qeq_().bytes,           w_(),       base_().bytes,         jitter_(),         table_.index() == 1,
              rounding_.index() == 1, path_ba_(), ba_threshold_().bytes, to_ps(ba_time_()), sonar_()};
    });
  }
  void send_cnm(const packet_header& data, const queue_view& q, const qcn_sample& s) {
    cnm_pdu pdu;
    pdu.quantized_feedback = s.qfb;
    const uint64_t cpid = q.port_mac << 16 | static_cast<uint64_t>(q.cls);  // egress port MAC + priority
    if (s.qfb) ++cnms_;
    injector_.inject(make_cnm(pdu, data, q.port_mac, cpid, s.q_offset, s.q_delta, injector_.node_id(), now_ps()));
  }

  const sc_core::sc_object* port_;  // first: what follows is declared under it, at class cls_
  int cls_;
  std::string scope_;  // "prio3.qcn": the statistics' scope, kept for the registry
  frame_injector_if& injector_;
  qcn_cp_state state_;
  param_cache<qcn_cp_config> config_;
  // Defaults: Qeq 26 KB (Mellanox CPCS cpqsp 26 048 B; the tutorial's table gives 20 or 66 KB at
  // 10 Gb/s), w 2 and the 150 KB sample base (tutorial table; CPCS cp_sample_base 150 016 B),
  // +/-15 % jitter (as the public ports randomise, [ns3-rdma: qbb-net-device.cc]; unverified
  // against the 802.1Qau pseudo-code, [802.1Qau]).
  param<byte_count> qeq_{
      port_,
      [] {
        return param_spec<byte_count>{
            "qcn.qeq", "qcn: equilibrium queue depth Qeq (tutorial table: 20 or 66 KB at 10 Gb/s; CPCS 26 048 B)",
            byte_count{26 * 1024}, byte_count{64}, byte_count{1ull << 30}};
      },
      cls_};
  param<double> w_{
      port_,
      [] {
        return param_spec<double>{
            "qcn.w", "qcn: weight w of the queue growth Qdelta in Fb = -(Qoff + w*Qdelta) (tutorial table: 2)",
            2.0,     0.0,
            64.0,    param_change::live};
      },
      cls_};
  param<byte_count> base_{port_,
                          [] {
                            return param_spec<byte_count>{
                                "qcn.sample_base",
                                "qcn: sampling interval at small |Fb|, bytes arrived; shrinks to 1/10 at the largest "
                                "|Fb| (tutorial table: 150 KB)",
                                byte_count{150000}, byte_count{64}, byte_count{1ull << 32}};
                          },
                          cls_};
  param<double> jitter_{port_,
                        [] {
                          return param_spec<double>{"qcn.sample_jitter",
                                                    "qcn: each sampling interval is drawn uniformly from (1 +/- this) "
                                                    "x nominal (public ports: about 15 %, unverified)",
                                                    0.15, 0.0, 0.9};
                        },
                        cls_};
  choice_param table_{port_,
                      [] {
                        return choice_spec{
                            "qcn.sample_table",
                            "qcn: sampling interval per band k of qFb: standard (the pseudo-code's table, 150 KB / (1 "
                            "+ k) at a 150 KB base) or linear (1/(1 + 9k/7): 1 % to 10 % of 1500-B frames)",
                            "standard",
                            {"standard", "linear"}};
                      },
                      cls_};
  choice_param rounding_{port_,
                         [] {
                           return choice_spec{
                               "qcn.fb_rounding",
                               "qcn: quantizing |Fb| x 63 / Fbmax to qFb: down (truncated, the OMNeT++ port: a small "
                               "|Fb| makes no CNM) or up (every Fb < 0 makes a CNM with qFb >= 1)",
                               "down",
                               {"down", "up"}};
                         },
                         cls_};
  const param<bool>& path_ba_ = qcn_settings::get().path_ba;  // scheme-wide: qcn.path_ba
  param<byte_count> ba_threshold_{port_,
                                  [] {
                                    return param_spec<byte_count>{
                                        "qcn.ba_threshold",
                                        "qcn path_ba: BA needs the queue below this (seed: 6 packets)",
                                        byte_count{9000}, byte_count{1}, byte_count{1ull << 30}};
                                  },
                                  cls_};
  param<sc_core::sc_time> ba_time_{
      port_,
      [] {
        return param_spec<sc_core::sc_time>{
            "qcn.ba_time", "qcn path_ba: BA = 1 once the queue stayed below ba_threshold this long (seed: 10 ms)",
            sc_core::sc_time(10, sc_core::SC_MS), sc_core::sc_time(0, sc_core::SC_PS),
            sc_core::sc_time(10, sc_core::SC_SEC)};
      },
      cls_};
  const param<bool>& sonar_ = qcn_settings::get().sonar;  // scheme-wide: qcn.sonar
  stat_counter samples_{
      port_, scope_.c_str(), [] {
        return stat_desc{"samples", "frames", "data frames sampled by the qcn congestion point", nullptr};
      }};
  stat_counter cnms_{
      port_, scope_.c_str(), [] {
        return stat_desc{"cnm_sent", "frames", "CNMs sent by the qcn congestion point (samples with Fb < 0)", nullptr};
      }};
  stat_counter fb99_{port_, scope_.c_str(), [] {
                       return stat_desc{"fb99_sent", "frames",
                                        "path_ba push-backs sent (qFb = 0 CNMs: Fb >= 0 but no bandwidth available)",
                                        nullptr};
                     }};
  stat_counter echoes_{port_, scope_.c_str(), [] {
                         return stat_desc{"echo_sent", "frames",
                                          "sonar echoes sent (qFb = 0 CNMs answering a probe while BA = 0)", nullptr};
                       }};
  int64_t last_fb_ = 0;  // a signed value: registered with its own descriptor
};

const policy_registrar<cp_policies> reg{
    "qcn", "IEEE 802.1Qau QCN: sample on enqueue, send a CNM with quantized Fb to the sampled frame's source",
    [](const sc_core::sc_object& port, int cls, frame_injector_if& injector) {
      return std::make_unique<qcn_cp>(port, cls, injector);
    }};
}  // namespace
}  // namespace sluice
