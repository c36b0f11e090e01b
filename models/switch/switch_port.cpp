#include "models/switch/switch_port.h"

#include <algorithm>

#include "models/core/stats.h"
#include "models/switch/switch_policies.h"

namespace sluice {
namespace {
const switch_port& port_of(const void* m) { return stat_model<switch_port>(m); }
const stat_desc class_stats[] = {
    {"queue_bytes", "bytes", "egress queue depth now (frames in the pipeline included)",
     [](const void* m, int k) { return static_cast<double>(port_of(m).queue(k).bytes); }},
    {"queue_max_bytes", "bytes", "largest egress queue depth",
     [](const void* m, int k) { return static_cast<double>(port_of(m).queue(k).max_bytes); }},
    {"queue_mean_bytes", "bytes", "time-averaged egress queue depth",
     [](const void* m, int k) { return port_of(m).queue(k).mean_bytes(to_ps(sc_core::sc_time_stamp())); }},
    {"frames_out", "frames", "frames dequeued for transmission",
     [](const void* m, int k) { return static_cast<double>(port_of(m).queue(k).frames_out); }, stat_kind::counter},
    {"bytes_out", "bytes", "wire bytes dequeued for transmission",
     [](const void* m, int k) { return static_cast<double>(port_of(m).queue(k).bytes_out); }, stat_kind::counter},
    {"drops", "frames", "frames dropped at ingress (MMU refusal or no route)",
     [](const void* m, int k) { return static_cast<double>(port_of(m).drops(k)); }, stat_kind::counter},
    {"watchdog_dropped", "frames", "frames this egress queue dropped under the PFC watchdog's drop action",
     [](const void* m, int k) { return static_cast<double>(port_of(m).egress.dropped(k).frames); }, stat_kind::counter},
    {"ingress_peak_bytes", "bytes", "largest priority-group occupancy (reserve + shared + headroom)",
     [](const void* m, int k) { return static_cast<double>(port_of(m).usage(k).peak_total); }},
    {"headroom_peak_bytes", "bytes", "largest headroom use of the priority group",
     [](const void* m, int k) { return static_cast<double>(port_of(m).usage(k).peak_headroom); }},
};
const param_spec<byte_count> quantum_spec{"dwrr.quantum",      "DWRR bytes per unit of weight per round",
                                          byte_count{1500},    byte_count{64},
                                          byte_count{1 << 24}, param_change::live};
const choice_spec sched_spec{"sched", "egress discipline of this class queue", "dwrr", {"strict", "dwrr"}};
const param_spec<uint64_t> weight_spec{"weight", "DWRR weight", 1, 1, 1000000, param_change::live};
const param_spec<uint64_t> high_limit_spec{
    "vlarb.high_limit",
    "ib-vlarb: 4 KiB units of high-priority VLs sent before one low packet (0: one; 255: no limit; OpenSM: 0)", 0, 0,
    255};
const param_spec<sc_core::sc_time> scheduler_latency_spec{
    "scheduler_latency",
    "time the egress scheduler takes to answer a dequeue decision, asked when the port looks for a frame "
    "(0: immediate; > 0: the split-phase path, one decision at a time, as an RTL or firmware scheduler)",
    sc_core::SC_ZERO_TIME, sc_core::SC_ZERO_TIME, sc_core::sc_time(1, sc_core::SC_MS)};
const param_spec<bool> scheduler_ahead_spec{
    "scheduler_ahead",
    "with a split-phase scheduler (scheduler_latency, an RTL scheduler's rtl.decision_cycles, or one bound): ask "
    "for the next decision as each frame starts on the wire, so that a decision no longer than a frame time costs "
    "no throughput (it sees the queues as they are then); false: ask when the wire is free",
    false, false, true};
const choice_spec& scheduler_spec() {
  static const auto spec =
      scheduler_policies::instance().choice_for("scheduler", "egress scheduler of this port", "strict-dwrr");
  return *spec;
}
const choice_spec& cp_spec() {
  static const auto spec = cp_policies::instance().choice_for("cp", "congestion point of this class queue", "none");
  return *spec;
}
}  // namespace

switch_port::switch_port(sc_core::sc_module_name name, int index, uint64_t mac_address, int classes,
                         ingress_state_if& ingress, buffer_release_if& buffer, const sc_core::sc_port<mmu_if>& mmu,
                         link_layer layer)
    : sc_module(name),
      mac("mac", index, mac_address),
      flow_control("pfc", mac, std::min(classes, pfc_priorities), &ingress),
      credits(layer == link_layer::ib ? std::make_unique<credit_flow_control>("credit", mac, classes) : nullptr),
      quantum(this, quantum_spec),
      scheduler(this, scheduler_spec()),
      scheduler_latency(this, scheduler_latency_spec),
      scheduler_ahead(this, scheduler_ahead_spec),
      egress(mac, gate(), buffer, classes),
      drops_(std::make_unique<class_drops[]>(static_cast<std::size_t>(classes))),
      mmu_(mmu) {
  quantum.on_change(this);
  mac.attach(&egress, nullptr);
  mac.attach_flow_control(&gate());
  flow_control.set_storm_listener(this);
  if (credits) {  // an InfiniBand port arbitrates among its VLs
    scheduler.set_default("ib-vlarb");
    high_limit = std::make_unique<param<uint64_t>>(this, high_limit_spec);
  }
  sched.declare(this, sched_spec, classes);
  weight.declare(this, weight_spec, classes);
  cp.declare(this, cp_spec(), classes);
  weight.on_change(this);
  sched.inert_when(inert_reason, this);
  weight.inert_when(inert_reason, this);
  for (param_base* p : std::initializer_list<param_base*>{&quantum, &scheduler, high_limit.get()})
    if (p) p->inert_when(inert_reason, this);
  scheduler_ahead.inert_when(
      [](const void* m, const param_base&) -> std::string {
        const switch_port& port = *static_cast<const switch_port*>(m);
        if (port.custom_split_ || to_ps(port.scheduler_latency()) > 0) return "";
        const scheduler_if* s = port.custom_scheduler_ ? port.custom_scheduler_ : port.default_scheduler_.get();
        if (!s || s->decision_latency_ps() > 0) return "";
        return std::string(port.name()) + "'s scheduler answers at once (no scheduler_latency, no decision latency)";
      },
      this);
  add_stats(*this, class_stats, this, classes);
}

// The scheduler's parameters are inert when another scheduler is bound in its place, when the
// chosen policy does not read them (weights under round-robin), or, under strict-dwrr (or its RTL
// twin), a strict class's weight and the quantum when no class is dwrr.
std::string switch_port::inert_reason(const void* model, const param_base& p) {
  const switch_port& port = *static_cast<const switch_port*>(model);
  const std::string leaf = p.leaf();
  if (port.custom_scheduler_)
    return std::string(port.name()) + " has a scheduler bound by bind_scheduler, which replaces the built-in one";
  if (leaf == "scheduler") return "";
  if (!scheduler_policies::instance().reads(port.scheduler(), leaf))
    return port.scheduler.name() + " is '" + port.scheduler() + "', which does not read " + leaf;
  if (port.scheduler().rfind("strict-dwrr", 0) != 0) return "";  // strict-dwrr and its RTL twin
  if (leaf == "weight" && port.sched.value(p.cls()) == "strict")
    return port.sched.name(p.cls()) + " is 'strict': weights share the rest among the dwrr classes";
  bool any_dwrr = false;
  for (int k = 0; k < port.classes(); ++k) any_dwrr = any_dwrr || port.sched.value(k) == "dwrr";
  if (leaf == "dwrr.quantum" && !any_dwrr)
    return "every class of " + std::string(port.name()) + " is strict (prio<k>.sched)";
  return "";
}

// Credit flow control admits only what the input buffer can hold: a drop is a model error.
void switch_port::count_drop(int cls, bool unroutable) {
  ++drops_[cls].all;
  drops_[cls].unroutable += unroutable;
  if (credits) SC_REPORT_ERROR(name(), "model error: a frame was dropped on an InfiniBand (credit) port");
}

scheduler_config switch_port::scheduler_settings() const {
  scheduler_config c;
  for (int i = 0; i < classes(); ++i) {
    c.strict[i] = sched.value(i) == "strict";
    c.weight[i] = static_cast<uint32_t>(weight.value(i));
  }
  c.quantum = static_cast<uint32_t>(quantum().bytes);
  if (high_limit) c.high_limit = static_cast<uint32_t>((*high_limit)());
  return c;
}

// The scheduler policy is made with the congestion points, before the overrides' second pass, so
// that it may declare parameters of its own; its configuration is read again at the start.
void switch_port::make_scheduler() {
  if (default_scheduler_) return;
  const scheduler_config settings = scheduler_settings();
  made_strict_ = settings.strict;
  default_scheduler_ = scheduler_policies::instance().make(scheduler.name(), scheduler(), settings, this);
}

void switch_port::start_of_simulation() {
  make_scheduler();  // if make_policies has not run
  const scheduler_config now = scheduler_settings();
  if (now.strict != made_strict_)
    throw config_error(std::string(name()) + ": prio<k>.sched changed after the scheduler was made");
  default_scheduler_->reconfigure(now);
  scheduler_if& chosen = custom_scheduler_ ? *custom_scheduler_ : *default_scheduler_;
  egress.set_scheduler(&chosen);
  if (custom_split_) {
    egress.set_split_scheduler(custom_split_);
  } else if (const uint64_t latency = to_ps(scheduler_latency()) + chosen.decision_latency_ps(); latency > 0) {
    latency_scheduler_ = std::make_unique<latency_scheduler>(chosen, latency);
    egress.set_split_scheduler(latency_scheduler_.get());
  }
  egress.set_decide_ahead(scheduler_ahead());
}

// A run-time write to a weight or the quantum: the port's scheduler recomputes its grants.
void switch_port::param_changed(const param_base&) {
  if (default_scheduler_) default_scheduler_->reconfigure(scheduler_settings());
}

}  // namespace sluice

namespace sluice {

void switch_port::counting_injector::inject(tlm::tlm_generic_payload* frame) {
  if (header(*frame).kind == frame_kind::cnm) ++cnms;
  to->inject(frame);
}

void switch_port::make_policies(frame_injector_if& injector) {
  if (policies_made_) return;
  policies_made_ = true;
  make_scheduler();
  for (int i = 0; i < classes(); ++i) {
    auto c = std::make_unique<class_cp>();
    c->injector.to = &injector;
    c->policy = cp_policies::instance().make(cp.name(i), cp.value(i), *this, i, c->injector);
    if (!c->policy) continue;
    egress.set_congestion_point(i, c->policy.get());
    cps_.resize(static_cast<std::size_t>(classes()));
    cps_[i] = std::move(c);
  }
}

}  // namespace sluice
