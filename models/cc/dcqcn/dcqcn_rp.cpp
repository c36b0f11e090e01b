// Reaction point "dcqcn": the DCQCN rate machine (dcqcn_rp_state, dcqcn_rp.h) of each flow the
// NIC sends, driving the flow's rate limiter (rate_limiter_if::set_rate, effective at once).
// Its parameters are declared once per NIC by the maker (<nic>.rp.<leaf>), packed once for every
// flow's reaction point at the first event of the run and again after a live write. A flow runs
// unlimited until its first CNP; from then on it has an alpha timer (tau') and a rate timer (T),
// both restarted by each CNP and served by one wake-up of the event queue (timed_client), and a
// byte counter over the wire bytes it sends. Once rc and rt are back at the line rate the timers
// stop; the alpha decays missed meanwhile are applied at the next CNP.
//
// Reaction point "dcqcn-tcd": the same machine reading TCD's code point from the CNP's IPv4 ECN
// bits (dcqcn-tcd NP): a CE CNP gets <nic>.rp.ce_reaction, a UE CNP <nic>.rp.ue_reaction, each
// `cut` (DCQCN's cut), `hold` (dcqcn_rp_state::on_hold: no cut, no increase until the next
// stage event) or `ignore`; defaults cut and hold (docs/models/tcd.md).
#include "models/cc/dcqcn/dcqcn_rp_policy.h"

namespace sluice {

std::unique_ptr<reaction_point_if> dcqcn_rp_maker::make(const flow&, rate_limiter_if& limiter) {
  return std::make_unique<dcqcn_rp_timing<dcqcn_rp_state>>(*this, limiter);
}

namespace {
const policy_registrar<rp_policies> reg{
    "dcqcn", "DCQCN: alpha-based rate cut per CNP, fast recovery, additive and hyper increase (rp.*)",
    [](const sc_core::sc_object& nic, const mac_port& mac) {
      return std::make_unique<dcqcn_rp_maker>(nic, mac, false);
    }};
const policy_registrar<rp_policies> reg_tcd{
    "dcqcn-tcd", "DCQCN reading TCD's code point from the CNP: rp.ce_reaction (cut) and rp.ue_reaction (hold)",
    [](const sc_core::sc_object& nic, const mac_port& mac) {
      return std::make_unique<dcqcn_rp_maker>(nic, mac, true);
    }};
// Its RTL twin (models/rtl/) is built only with Verilator: a build without says so.
const absent_choice rtl_twin{"dcqcn-rtl", without_verilator};
}  // namespace
}  // namespace sluice
