// Reaction point "qcn": IEEE 802.1Qau QCN at the sender, one per flow (qcn_rp_state). A CNM about
// the flow cuts its current rate; the byte counter (bytes the flow sends) and a timer (through
// the event queue) drive fast recovery, active and hyper-active increase. Every change goes to
// the flow's rate limiter at once; back at line rate the limit is lifted (rate 0: no limit).
//
// Parameters are declared once per NIC, <nic>.qcn.<leaf>, shared by all its flows' reaction
// points through the NIC's reaction-point maker (qcn_maker). Their configuration is packed once,
// at the first event of the run (after the overrides), and again only after a live write (gd,
// r_ai, r_hai, min_rate). See docs/models/qcn.md.
#include <algorithm>
#include <memory>
#include <string>

#include "models/cc/qcn/qcn_rp_state.h"
#include "models/cc/qcn/qcn_settings.h"
#include "models/cc/reaction_point.h"
#include "models/core/event_queue.h"
#include "models/core/param_cache.h"
#include "models/core/params.h"
#include "models/core/random.h"
#include "models/protocol/cnm_frame.h"

namespace sluice {
namespace {
// The parameters of a NIC's QCN reaction points, each one member declaration under the NIC
// ("h0.qcn.gd"). Defaults from the tutorial's QCN table (10 Gb/s, [L2CC-tutorial]) and [802.1Qau] (see
// docs/models/qcn.md).
struct qcn_rp_params {
  explicit qcn_rp_params(const sc_core::sc_object* nic) : nic_(nic) {
    ba_timer.inert_when(
        [](const void* m, const param_base&) -> std::string {
          const qcn_rp_params& q = *static_cast<const qcn_rp_params*>(m);
          return q.path_ba() ? "" : q.path_ba.name() + " is false";
        },
        this);
    for (param_base* p : std::initializer_list<param_base*>{&sonar_wait, &sonar_echo, &sonar_fuse})
      p->inert_when(
          [](const void* m, const param_base&) -> std::string {
            const qcn_rp_params& q = *static_cast<const qcn_rp_params*>(m);
            return q.sonar() ? "" : q.sonar.name() + " is false";
          },
          this);
    config_.watch({&gd, &min_rate, &r_ai, &r_hai});
  }
  const sc_core::sc_object* nic_;  // first: the parameters below are declared under it
  param<double> gd{nic_, [] {
                     return param_spec<double>{"qcn.gd",
                                               "qcn RP: decrease gain per unit of qFb/63, CR <- CR*(1 - gd*qFb/63) "
                                               "(tutorial table: Gd 0.5, min decrease factor 0.5)",
                                               0.5,
                                               0.0,
                                               1.0,
                                               param_change::live};
                   }};
  param<data_rate> min_rate{
      nic_, [] {
        return param_spec<data_rate>{
            "qcn.min_rate",  "qcn RP: lowest current rate (common: 10 Mb/s; the tutorial's table: 100 Kb/s)",
            data_rate{10e6}, data_rate{1e3},
            data_rate{1e13}, param_change::live};
      }};
  param<byte_count> bc{
      nic_, [] {
        return param_spec<byte_count>{
            "qcn.bc_limit",
            "qcn RP: bytes sent per byte-counter cycle in fast recovery, half after (tutorial table: 150 KB)",
            byte_count{150000}, byte_count{64}, byte_count{1ull << 36}};
      }};
  param<sc_core::sc_time> timer{
      nic_, [] {
        return param_spec<sc_core::sc_time>{
            "qcn.timer", "qcn RP: timer cycle in fast recovery, half after (tutorial table: CM timer 15 ms)",
            sc_core::sc_time(15, sc_core::SC_MS), sc_core::sc_time(1, sc_core::SC_US),
            sc_core::sc_time(10, sc_core::SC_SEC)};
      }};
  param<uint64_t> f{nic_, [] {
                      return param_spec<uint64_t>{
                          "qcn.fr_threshold",
                          "qcn RP: fast-recovery cycles per counter before increase (tutorial table: 5)", 5, 1, 1000};
                    }};
  param<data_rate> r_ai{
      nic_, [] {
        return param_spec<data_rate>{
            "qcn.r_ai",      "qcn RP: active-increase step of the target rate (tutorial table: 5 Mb/s)",
            data_rate{5e6},  data_rate{1e3},
            data_rate{1e13}, param_change::live};
      }};
  param<data_rate> r_hai{
      nic_, [] {
        return param_spec<data_rate>{
            "qcn.r_hai",     "qcn RP: hyper-active-increase step of the target rate (tutorial table: 50 Mb/s)",
            data_rate{50e6}, data_rate{1e3},
            data_rate{1e13}, param_change::live};
      }};
  param<bool> efr{nic_, [] {
                    return param_spec<bool>{"qcn.extra_fast_recovery",
                                            "qcn RP: CNMs before the byte counter's first cycle keep the target rate "
                                            "(tutorial table: enabled; both pseudo-code ports)",
                                            true, false, true};
                  }};
  param<bool> target_reduction{nic_, [] {
                                 return param_spec<bool>{
                                     "qcn.target_reduction",
                                     "qcn RP: at a cycle end with a stage counter at 1, if TR > 10*CR then TR <- TR/8 "
                                     "(both pseudo-code ports; seed qcn-transient-response)",
                                     true, false, true};
                               }};
  const param<bool>& path_ba = qcn_settings::get().path_ba;  // scheme-wide: qcn.path_ba
  param<sc_core::sc_time> ba_timer{nic_, [] {
                                     return param_spec<sc_core::sc_time>{
                                         "qcn.ba_timer",
                                         "qcn RP: rate-increase timer with path_ba, half after F cycles (seed: 5 ms)",
                                         sc_core::sc_time(5, sc_core::SC_MS), sc_core::sc_time(1, sc_core::SC_US),
                                         sc_core::sc_time(10, sc_core::SC_SEC)};
                                   }};
  const param<bool>& sonar = qcn_settings::get().sonar;  // scheme-wide: qcn.sonar
  param<sc_core::sc_time> sonar_wait{
      nic_, [] {
        return param_spec<sc_core::sc_time>{
            "qcn.sonar_wait",
            "qcn RP sonar: waiting-to-probe time, from a cut or an echo to the next probe (choice: 5 ms)",
            sc_core::sc_time(5, sc_core::SC_MS), sc_core::sc_time(1, sc_core::SC_US),
            sc_core::sc_time(10, sc_core::SC_SEC)};
      }};
  param<sc_core::sc_time> sonar_echo{
      nic_, [] {
        return param_spec<sc_core::sc_time>{
            "qcn.sonar_echo_wait",
            "qcn RP sonar: how long a probe waits for an echo (choice: 1 ms, twice the seed's 500 us RTT)",
            sc_core::sc_time(1, sc_core::SC_MS), sc_core::sc_time(1, sc_core::SC_US),
            sc_core::sc_time(10, sc_core::SC_SEC)};
      }};
  param<sc_core::sc_time> sonar_fuse{
      nic_, [] {
        return param_spec<sc_core::sc_time>{
            "qcn.sonar_fuse", "qcn RP sonar: short-fuse period, one hyper-active cycle each (choice: 1 ms)",
            sc_core::sc_time(1, sc_core::SC_MS), sc_core::sc_time(1, sc_core::SC_US),
            sc_core::sc_time(10, sc_core::SC_SEC)};
      }};
  choice_param tr_hold{nic_, [] {
                         return choice_spec{
                             "qcn.tr_hold",
                             "qcn RP: extra fast recovery holds TR while the byte counter has ended no cycle since the "
                             "last CNM (byte-stage: both pseudo-code ports) or while neither counter has (both-stages)",
                             "byte-stage",
                             {"byte-stage", "both-stages"}};
                       }};
  param<bool> bc_reset{nic_, [] {
                         return param_spec<bool>{"qcn.bc_reset_every_cnm",
                                                 "qcn RP: every CNM restarts the byte counter (false: only a CNM that "
                                                 "sets TR <- CR, as both pseudo-code ports)",
                                                 false, false, true};
                       }};
  param<double> jitter{nic_, [] {
                         return param_spec<double>{
                             "qcn.recovery_jitter",
                             "qcn RP: each byte-counter and timer period after a cycle end is drawn from (1 +/- this) "
                             "x nominal, from the flow's own stream; 0: exact (OMNeT++ port: uniform(0.85, 1.15))",
                             0.15, 0.0, 0.9};
                       }};
  // What every CNM, frame and timer of the NIC's flows reads: packed once, again after a live write.
  const qcn_rp_config& config() const {
    return config_.get([this]() -> qcn_rp_config {
      return {gd(),
              min_rate().bps,
              bc().bytes,
              to_ps(timer()),
              static_cast<int>(f()),
              r_ai().bps,
              r_hai().bps,
              efr(),
              target_reduction(),
              path_ba(),
              to_ps(ba_timer()),
              sonar(),
              to_ps(sonar_wait()),
              to_ps(sonar_echo()),
              to_ps(sonar_fuse()),
              jitter(),
              tr_hold.index() == 1,
              bc_reset()};
    });
  }

 private:
  mutable param_cache<qcn_rp_config> config_;
};

// The QCN reaction points of one NIC: the parameters, declared once under the NIC ("h0.qcn.gd"),
// and the NIC's port for the line rate.
class qcn_maker final : public reaction_point_maker {
 public:
  qcn_maker(const sc_core::sc_object& nic, const mac_port& mac) : params(&nic), mac(mac), nic_name(nic.name()) {}
  std::unique_ptr<reaction_point_if> make(const flow& f, rate_limiter_if& limiter) override;
  qcn_rp_params params;
  const mac_port& mac;
  std::string nic_name;  // the flows' random streams are named after it
};

class qcn_rp final : public reaction_point_if, public timed_client {
 public:
  qcn_rp(const qcn_maker& maker, const flow& f, rate_limiter_if& limiter)
      : params_(maker.params),
        mac_(maker.mac),
        source_rate_(f.spec.rate.bps),
        limiter_(limiter),
        state_(0, random_streams::instance().seed_for(maker.nic_name + ".qcn.flow" + std::to_string(f.id))) {}

  // TR, the rate recovery heads for (the line rate while released; 0 before the first CNM).
  data_rate target_rate() const override { return data_rate{state_.target_rate()}; }

  void on_feedback(const packet_header& h, uint64_t now) override {
    if (h.kind != frame_kind::cnm || !h.image) return;
    cnm_qfb qfb = decode(h);
    if (!qfb.ok) return;
    if (state_.line_rate() <= 0) state_.set_line_rate(line_rate());
    if (!state_.on_cnm(qfb.value, now, params_.config())) return;
    apply();
    arm();
  }
  void tag(packet_header& h) override {
    if (state_.take_probe(now_ps(), params_.config())) {
      h.flags |= frame_flags::probe;
      arm();
    }
  }
  void on_send(const packet_header& h, uint64_t) override {
    if (state_.on_sent(h.size, params_.config())) apply();
  }
  // One wake-up serves the cycle timer and the SONAR ping timer; a wake-up made stale (a CNM
  // moved a timer later) finds nothing due and re-arms for the new time.
  void on_timer() override {
    const uint64_t now = now_ps();
    const qcn_rp_config& c = params_.config();
    bool changed = false;
    if (state_.timer_due_ps() && now >= state_.timer_due_ps()) changed |= state_.on_timer(now, c);
    if (state_.ping_due_ps() && now >= state_.ping_due_ps()) changed |= state_.on_ping_timer(now, c);
    if (changed) apply();
    arm();
  }

 private:
  struct cnm_qfb {
    bool ok;
    uint8_t value;
  };
  static cnm_qfb decode(const packet_header& h);
  double line_rate() const {
    double line = mac_.has_wire() ? mac_.wire().current_rate().bps : 0;
    if (source_rate_ > 0 && (line <= 0 || source_rate_ < line)) line = source_rate_;
    return line;
  }
  void arm() {
    const uint64_t t = state_.timer_due_ps(), p = state_.ping_due_ps();
    const uint64_t due = t && p ? std::min(t, p) : t ? t : p;
    if (due) event_queue::instance().schedule(this, due);
  }
  void apply() { limiter_.set_rate(data_rate{state_.limited() ? state_.current_rate() : 0.0}); }

  const qcn_rp_params& params_;
  const mac_port& mac_;
  double source_rate_;
  rate_limiter_if& limiter_;
  qcn_rp_state state_;
};

qcn_rp::cnm_qfb qcn_rp::decode(const packet_header& h) {
  cnm_pdu pdu;
  if (!decode_cnm(*h.image, pdu)) return {false, 0};
  return {true, pdu.quantized_feedback};
}

std::unique_ptr<reaction_point_if> qcn_maker::make(const flow& f, rate_limiter_if& limiter) {
  return std::make_unique<qcn_rp>(*this, f, limiter);
}

const policy_registrar<rp_policies> reg{
    "qcn", "IEEE 802.1Qau QCN: cut on CNM by the quantized Fb, fast recovery, active and hyper-active increase",
    [](const sc_core::sc_object& nic, const mac_port& mac) { return std::make_unique<qcn_maker>(nic, mac); }};
}  // namespace
}  // namespace sluice
