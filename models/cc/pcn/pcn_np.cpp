// Notification point "pcn": PCN's receiver (pcn_np_flow, pcn_np.h) for each flow this NIC
// receives. Every <nic>.np.period (T) while a flow's frames arrive it sends one RoCEv2 CNP to the
// flow's source, marked (IPv4 ECN = CE) if at least np.congested_share of the period's frames
// were CE-marked, carrying the receiving rate in 1 Mb/s units in its first reserved word
// (make_roce_cnp). A period without frames sends nothing. Each flow's period timer is its own
// wake-up on the event queue. Counts CE-marked frames (<nic>.np.ce_frames), marked CNPs
// (np.congested_cnps) and the CNPs per flow (np.flow<id>.cnps).
#include "models/cc/pcn/pcn_np.h"

#include <memory>
#include <vector>

#include "models/cc/dcqcn/roce_cnp.h"
#include "models/cc/notification_point.h"
#include "models/cc/received_flow_counts.h"
#include "models/core/event_queue.h"
#include "models/core/params.h"
#include "models/core/stats.h"

namespace sluice {
namespace {
double read_count(const void* m, int) { return static_cast<double>(*static_cast<const uint64_t*>(m)); }
const stat_desc flow_stat[] = {{"cnps", "frames", "CNPs made for this flow (pcn)", read_count, stat_kind::counter}};

class pcn_np final : public notification_point_if {
 public:
  pcn_np(const sc_core::sc_object& nic, control_sender_if& sender, const flow_table& flows)
      : nic_(&nic), sender_(sender), flows_(flows.size()), cnps_(nic, sender.node_id(), flows, flow_stat[0]) {}
  void on_data(const packet_header& h, uint64_t now) override {
    const bool ce = h.ecn == 3;
    ce_ += ce;
    if (h.flow_id >= flows_.size()) flows_.resize(h.flow_id + 1);
    std::unique_ptr<flow_timer>& f = flows_[h.flow_id];
    if (!f) f = std::make_unique<flow_timer>(*this, h);
    if (f->state.on_data(h.size, ce, now)) event_queue::instance().schedule(f.get(), now + to_ps(period_()));
  }

 private:
  // One flow's NP state and its period timer; `last` is a copy of its latest frame's fields, to
  // address the CNP.
  struct flow_timer final : timed_client {
    flow_timer(pcn_np& np, const packet_header& h) : np(np) { last.fields() = h.fields(); }
    void on_timer() override { np.period_end(*this); }
    pcn_np& np;
    pcn_np_flow state;
    packet_header last;
  };
  void period_end(flow_timer& f) {
    const uint64_t now = now_ps(), period = to_ps(period_());
    pcn_cnp cnp;
    if (!f.state.on_period_end(period, share_(), cnp)) return;
    congested_ += cnp.congested;
    cnps_.add(f.last.flow_id);
    sender_.send_control(
        make_roce_cnp(f.last, sender_.node_id(), now, cnp.congested ? 3 : 0, pcn_rate_field(cnp.rate_bps)));
    event_queue::instance().schedule(&f, now + period);
  }

  const sc_core::sc_object* nic_;  // first: what follows is declared under it
  param<sc_core::sc_time> period_{nic_, [] {
                                    return param_spec<sc_core::sc_time>{
                                        "np.period",
                                        "pcn: CNP generation period T per flow (paper: 50 us, about the largest RTT)",
                                        sc_core::sc_time(50, sc_core::SC_US), sc_core::sc_time(1, sc_core::SC_NS),
                                        sc_core::sc_time(1, sc_core::SC_SEC)};
                                  }};
  param<double> share_{nic_, [] {
                         return param_spec<double>{"np.congested_share",
                                                   "pcn: a flow is congested if at least this share of a period's "
                                                   "frames were CE-marked (paper: 0.95)",
                                                   0.95, 0.0, 1.0};
                       }};
  control_sender_if& sender_;
  std::vector<std::unique_ptr<flow_timer>> flows_;  // by flow id, made at the flow's first frame
  stat_counter ce_{nic_, "np", [] {
                     return stat_desc{"ce_frames", "frames", "CE-marked data frames received (pcn)", nullptr};
                   }};
  stat_counter congested_{
      nic_, "np", [] {
        return stat_desc{"congested_cnps", "frames", "CNPs sent with the congestion flag (pcn)", nullptr};
      }};
  received_flow_counts cnps_;
};

const policy_registrar<np_policies> reg{
    "pcn",
    "PCN: a CNP per flow every np.period with the congestion flag (>= np.congested_share CE) and the receiving rate",
    [](const sc_core::sc_object& nic, control_sender_if& sender, const flow_table& flows) {
      return std::make_unique<pcn_np>(nic, sender, flows);
    }};
}  // namespace
}  // namespace sluice
