// Reaction point "pcn": PCN's rate machine (pcn_rp_state, pcn_rp.h) for each flow the NIC sends,
// driving the flow's rate limiter. It reads the CNP off the wire image (roce::decode): the IPv4
// ECN bits (CE: congested) and the receiving rate in the first reserved word (1 Mb/s units).
// A flow sends at line rate until its first CNP. Parameters once per NIC (<nic>.rp.<leaf>).
#include "models/cc/pcn/pcn_rp.h"

#include "models/cc/reaction_point.h"
#include "models/core/param_cache.h"
#include "models/core/params.h"
#include "models/protocol/roce_frame.h"

namespace sluice {
namespace {
class pcn_maker final : public reaction_point_maker {
 public:
  pcn_maker(const sc_core::sc_object& nic, const mac_port& mac) : nic_(&nic), mac_(mac) {}
  std::unique_ptr<reaction_point_if> make(const flow&, rate_limiter_if& limiter) override;
  // What every CNP reads: packed at the first of the run (no live parameter: w_min <= w_max is
  // checked before the run); the line rate as it is now.
  const pcn_rp_config& config() const {
    pcn_rp_config& c = config_.get([this] { return pcn_rp_config{w_min(), w_max(), 0, min_rate().bps}; });
    c.line_rate = mac_.wire().current_rate().bps;
    return c;
  }
  void check() const override {
    if (w_max() < w_min())
      throw config_error(w_min.name() + ": " + format_number(w_min()) + " is above " + w_max.name() + " (" +
                         format_number(w_max()) + ")");
  }

 private:
  const sc_core::sc_object* nic_;  // first: the parameters below are declared under it
  const mac_port& mac_;
  mutable param_cache<pcn_rp_config> config_;

 public:
  param<double> w_min{nic_, [] {
                        return param_spec<double>{
                            "rp.w_min", "pcn: smallest increase weight, and the decrease discount (paper: 1/128)",
                            1.0 / 128, 0.0, 1.0};
                      }};
  param<double> w_max{
      nic_, [] {
        return param_spec<double>{"rp.w_max", "pcn: largest increase weight (paper: 0.5)", 0.5, 0.0, 1.0};
      }};
  param<data_rate> min_rate{nic_, [] {
                              return param_spec<data_rate>{
                                  "rp.min_rate",
                                  "pcn: lowest rate a CNP may set (the paper gives none; as DCQCN's ns3-rdma floor)",
                                  data_rate{100e6}, data_rate{1e3}, data_rate{1e13}};
                            }};
};

class pcn_rp final : public reaction_point_if {
 public:
  pcn_rp(const pcn_maker& maker, rate_limiter_if& limiter) : maker_(maker), limiter_(limiter) {}
  void on_feedback(const packet_header& h, uint64_t) override {
    roce::headers w;
    if (h.kind != frame_kind::cnp || !h.image || !roce::decode(h.image->data(), w)) return;
    const pcn_rp_config& c = maker_.config();
    if (!state_) state_ = std::make_unique<pcn_rp_state>(c.line_rate, c.w_min);
    state_->on_cnp(c, w.ecn == 3, static_cast<double>(w.cnp_rate_mbps) * 1e6);
    limiter_.set_rate(data_rate{state_->rate()});
  }
  void on_send(const packet_header&, uint64_t) override {}

 private:
  const pcn_maker& maker_;
  rate_limiter_if& limiter_;
  std::unique_ptr<pcn_rp_state> state_;  // from the first CNP
};

std::unique_ptr<reaction_point_if> pcn_maker::make(const flow&, rate_limiter_if& limiter) {
  return std::make_unique<pcn_rp>(*this, limiter);
}

const policy_registrar<rp_policies> reg{
    "pcn", "PCN: receiver-driven decrease to recRate x (1 - w_min), gentle-to-aggressive increase (rp.w_min, rp.w_max)",
    [](const sc_core::sc_object& nic, const mac_port& mac) { return std::make_unique<pcn_maker>(nic, mac); }};
}  // namespace
}  // namespace sluice
