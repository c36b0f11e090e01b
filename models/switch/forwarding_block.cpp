#include "models/switch/forwarding_block.h"

#include "models/core/stats.h"
#include "models/switch/switch_policies.h"

namespace sluice {
namespace {
const choice_spec& forwarding_spec() {
  static const auto spec = forwarding_policies::instance().choice_for(
      "forwarding", "which of a destination's equal-cost ports a frame takes", "ecmp");
  return *spec;
}
const choice_spec granularity_spec{"ar.granularity",
                                   "what an adaptive forwarding policy places on a port: a flow until it has "
                                   "reason to move, a flowlet (also re-chosen after ar.flowlet_gap), or each packet",
                                   "flow",
                                   {"flow", "flowlet", "packet"}};
const param_spec<sc_core::sc_time> flowlet_gap_spec{
    "ar.flowlet_gap", "a gap this long between two frames of a flow starts a new flowlet (ar.granularity = flowlet)",
    sc_core::sc_time(10, sc_core::SC_US), sc_core::sc_time(1, sc_core::SC_NS), sc_core::sc_time(1, sc_core::SC_SEC)};
const param_spec<sc_core::sc_time> aging_spec{
    "ar.aging",
    "a congestion-table entry stays congested this long after its latest notification (forwarding = adaptive)",
    sc_core::sc_time(100, sc_core::SC_US), sc_core::sc_time(1, sc_core::SC_NS), sc_core::sc_time(1, sc_core::SC_SEC)};
const param_spec<sc_core::sc_time> hold_spec{
    "ar.hold",
    "after a flow left a port, no other flow leaves it for this long, and notifications about the moved flow "
    "within it are taken as about the path it left (damps herd moves and the old path's drain; 0: no hold)",
    sc_core::sc_time(100, sc_core::SC_US), sc_core::SC_ZERO_TIME, sc_core::sc_time(1, sc_core::SC_SEC)};
const param_spec<byte_count> queue_threshold_spec{
    "ar.queue_threshold",
    "a pinned flow leaves its port when the class queue there holds more (forwarding = adaptive-local)",
    byte_count{10000}, byte_count{0}, byte_count{1ull << 30}};
const param_spec<bool> absorb_spec{
    "ar.absorb",
    "a notification that made this switch move its flow to an uncongested port (or that arrives within ar.hold "
    "of such a move) goes no further, so the source keeps its rate; false: every notification reaches the "
    "source (forwarding = adaptive)",
    true, false, true};

// A counter of the adaptive policy, 0 under the others.
template <uint64_t (steering_selector::*count)() const>
double steering_count(const void* m, int) {
  const steering_selector* s = stat_model<forwarding_block>(m).steering();
  return s ? static_cast<double>((s->*count)()) : 0.0;
}

const stat_desc forwarding_stats[] = {
    {"ar_reroutes", "flows", "times an adaptive policy moved a flow (or flowlet) to another port",
     steering_count<&steering_selector::reroutes>, stat_kind::counter},
    {"ar_notifications", "frames", "congestion notifications entered in the congestion table (adaptive)",
     steering_count<&steering_selector::snooped>, stat_kind::counter},
    {"ar_absorbed", "frames", "notifications this switch acted on and did not pass on (adaptive, ar.absorb)",
     steering_count<&steering_selector::absorbed>, stat_kind::counter},
    {"ar_unmatched", "frames", "notifications snooped about flows this switch never routed (adaptive)",
     steering_count<&steering_selector::unmatched>, stat_kind::counter},
};

// The ar.* settings act only under the policies that read them.
std::string inert_ar(const void* model, const param_base& p) {
  const forwarding_block& f = *static_cast<const forwarding_block*>(model);
  const std::string& chosen = f.policy();
  const std::string leaf = p.leaf();
  const bool adaptive = chosen == "adaptive" || chosen == "adaptive-local";
  const std::string sw = f.get_parent_object()->name();
  if (!adaptive) return sw + ".forwarding is '" + chosen + "', which reads no ar.* setting";
  if ((leaf == "ar.aging" || leaf == "ar.absorb") && chosen != "adaptive")
    return sw + ".forwarding is '" + chosen + "', which keeps no congestion table";
  if (leaf == "ar.queue_threshold" && chosen != "adaptive-local")
    return sw + ".forwarding is '" + chosen + "', which does not read the local queue";
  const std::string& unit = f.ar_granularity();
  if (leaf == "ar.flowlet_gap" && unit != "flowlet") return sw + ".ar.granularity is '" + unit + "', not 'flowlet'";
  if ((leaf == "ar.hold" || leaf == "ar.queue_threshold") && unit == "packet")
    return sw + ".ar.granularity is 'packet': nothing is pinned";
  return "";
}
}  // namespace

forwarding_block::forwarding_block(sc_core::sc_module_name name, const congestion_view& view, int ports)
    : sc_module(name),
      policy(get_parent_object(), forwarding_spec()),
      ar_granularity(get_parent_object(), granularity_spec),
      ar_flowlet_gap(get_parent_object(), flowlet_gap_spec),
      ar_aging(get_parent_object(), aging_spec),
      ar_hold(get_parent_object(), hold_spec),
      ar_queue_threshold(get_parent_object(), queue_threshold_spec),
      ar_absorb(get_parent_object(), absorb_spec),
      view_(view),
      ports_(ports) {
  for (param_base* p : std::initializer_list<param_base*>{&ar_granularity, &ar_flowlet_gap, &ar_aging, &ar_hold,
                                                          &ar_queue_threshold, &ar_absorb})
    p->inert_when(inert_ar, this);
  add_stats(*get_parent_object(), forwarding_stats, this);
}

void forwarding_block::make_selector() {
  if (selector_) return;
  selector_ = forwarding_policies::instance().make(policy.name(), policy());
  steering_ = dynamic_cast<steering_selector*>(selector_.get());
  table.set_selector(selector_.get());
  if (!steering_) return;
  ar_config c;
  c.granularity = static_cast<ar_config::unit>(ar_granularity.index());
  c.flowlet_gap_ps = to_ps(ar_flowlet_gap());
  c.aging_ps = to_ps(ar_aging());
  c.hold_ps = to_ps(ar_hold());
  c.queue_threshold = ar_queue_threshold().bytes;
  c.absorb = ar_absorb();
  steering_->configure(c, ports_, table);
  steering_->attach(&view_);
  table.set_adaptive(steering_);
}

}  // namespace sluice
