#include "models/nic/nic.h"

#include "models/core/frame_kinds.h"
#include "models/core/probe.h"
#include "models/core/stats.h"
#include "models/protocol/ethernet.h"
#include "models/protocol/ib_frame.h"

namespace sluice {
namespace {
const nic& nic_of(const void* m) { return stat_model<nic>(m); }
const stat_desc nic_stats[] = {
    {"frames_received", "frames", "data frames that arrived at this NIC (misdelivered ones included)",
     [](const void* m, int) { return static_cast<double>(nic_of(m).receiver().frames_received()); },
     stat_kind::counter},
    {"misdelivered", "frames", "frames that arrived here for another NIC, an unknown flow or of no use here",
     [](const void* m, int) { return static_cast<double>(nic_of(m).receiver().misdelivered()); }, stat_kind::counter},
    {"feedback_unmatched", "frames", "feedback frames (CNM, CNP, ACK) for a flow without a reaction point",
     [](const void* m, int) { return static_cast<double>(nic_of(m).receiver().unmatched_feedback()); },
     stat_kind::counter},
    {"resequenced", "frames",
     "data frames that arrived ahead of a gap in their flow (reordered by the fabric) and waited for it",
     [](const void* m, int) { return static_cast<double>(nic_of(m).receiver().resequenced()); }, stat_kind::counter},
    {"resequencing_delay", "ns", "total time resequenced frames waited before delivery",
     [](const void* m, int) { return nic_of(m).receiver().resequencing_delay_ps() / 1e3; }, stat_kind::counter},
    {"resequencing_delay_max", "ns", "longest time a resequenced frame waited before delivery",
     [](const void* m, int) { return nic_of(m).receiver().resequencing_delay_max_ps() / 1e3; }},
    {"out_of_order_delivered", "frames", "data frames delivered behind bytes already delivered (never expected)",
     [](const void* m, int) { return static_cast<double>(nic_of(m).receiver().out_of_order_delivered()); },
     stat_kind::counter},
    {"r3c2_activations", "paths", "paths its flows activated after their first, on congestion (routing = r3c2)",
     [](const void* m, int) { return static_cast<double>(nic_of(m).path_activations()); }, stat_kind::counter},
    {"r3c2_notifications", "frames", "congestion notifications about its flows' paths (routing = r3c2)",
     [](const void* m, int) { return static_cast<double>(nic_of(m).path_notifications()); }, stat_kind::counter},
};
const stat_desc class_stats[] = {
    {"frames_sent", "frames", "data frames sent on this class",
     [](const void* m, int k) { return static_cast<double>(nic_of(m).frames_sent(k)); }, stat_kind::counter},
    {"bytes_sent", "bytes", "wire bytes of data sent on this class",
     [](const void* m, int k) { return static_cast<double>(nic_of(m).bytes_sent(k)); }, stat_kind::counter},
};
const param_spec<byte_count> mtu_spec{"mtu", "payload bytes per data frame", byte_count{1000}, byte_count{1},
                                      byte_count{65536}};
const param_spec<byte_count> header_spec{"header",
                                         "per-frame header and trailer bytes on the wire (RoCEv2 over Ethernet: 62)",
                                         byte_count{0}, byte_count{0}, byte_count{1024}};
const param_spec<byte_count> min_frame_spec{"min_frame",
                                            "smallest frame on the wire; shorter frames are padded (Ethernet: 64 B)",
                                            byte_count{eth::min_frame}, byte_count{1}, byte_count{1024}};
const param_spec<sc_core::sc_time> rate_update_latency_spec{
    "rate_update_latency",
    "time a reaction point's rate update takes to reach the flow's rate limiter, updates in order "
    "(firmware or a CC engine writing the pacer; 0: at once)",
    sc_core::SC_ZERO_TIME, sc_core::SC_ZERO_TIME, sc_core::sc_time(1, sc_core::SC_MS)};
const choice_spec& np_spec() {
  static const auto spec = np_policies::instance().choice_for("np", "congestion notification point", "none");
  return *spec;
}
const choice_spec& rp_spec() {
  static const auto spec =
      rp_policies::instance().choice_for("rp", "congestion reaction point of each flow sent", "none");
  return *spec;
}
}  // namespace

nic::nic(sc_core::sc_module_name name, uint32_t node_id, flow_table& flows, int classes, link_layer layer)
    : sc_module(name),
      mtu(this, mtu_spec),
      header_bytes(this, header_spec),
      min_frame(this, min_frame_spec),
      rate_update_latency(this, rate_update_latency_spec),
      np(this, np_spec()),
      rp(this, rp_spec()),
      firmware(this),
      routing(this),
      port("port0", eth::mac_address(node_id, 0), classes, layer),
      registers("regs", "nic", register_device_),
      register_device_(*this, classes),
      node_id_(node_id),
      flows_(flows),
      tx_(port.mac, port.gate(), flows, classes),
      rx_(node_id, flows),
      acks_(*this, *this, flows) {
  rx_.set_ack_model(&acks_);
  // An InfiniBand NIC consumes each frame as it lands: its credit returns at once.
  port.mac.attach(&tx_, port.credits ? &port.credits->consuming_sink(rx_) : &rx_);
  if (layer == link_layer::ib) {  // LRH + BTH + ICRC + VCRC; no minimum frame (docs/models/infiniband.md)
    header_bytes.set_default(byte_count{ib::data_overhead});
    min_frame.set_default(byte_count{ib::data_overhead});
  }
  add_stats(*this, nic_stats, this);
  // <nic>.<kind>_received and <kind>_sent for every feedback kind the schemes registered.
  for (const frame_kind_info* k : frame_kind_registry::instance().kinds()) {
    if (k->role != frame_role::feedback) continue;
    stat_registry::instance().add(this, nullptr, &k->received, 1, &rx_.received_counter(k->kind));
    stat_registry::instance().add(this, nullptr, &k->sent, 1, &tx_.control_frames(k->kind));
  }
  add_stats(*this, class_stats, this, classes);
  probe_registry& probes = probe_registry::instance();
  probes.declare(probes::feedback_sent, this, this);
  probes.declare(probes::feedback_received, &rx_, this);
  probes.declare(probes::rate_change, this, this);
  // A reaction point reacts for the flows this NIC sends, a notification point for those it
  // receives: with none, the choice has no effect.
  for (param_base* p : std::initializer_list<param_base*>{&np, &rp})
    p->inert_when(
        [](const void* m, const param_base& self) -> std::string {
          const nic& n = *static_cast<const nic*>(m);
          if (&self == &n.rp && n.firmware.attached()) return std::string(n.name()) + " runs firmware in its place";
          if (&self == &n.rp) return n.flow_ids_.empty() ? std::string(n.name()) + " sends no flow" : "";
          for (const flow& f : n.flows_)
            if (f.spec.dst == n.node_id_) return "";
          return std::string(n.name()) + " receives no flow";
        },
        this);
  for (param_base* p : std::initializer_list<param_base*>{&routing.routing, &routing.paths, &routing.max_active,
                                                          &routing.aging, &routing.rate_control})
    p->inert_when(
        [](const void* m, const param_base& self) -> std::string {
          const nic& n = *static_cast<const nic*>(m);
          if (n.flow_ids_.empty()) return std::string(n.name()) + " sends no flow";
          if (&self != &n.routing.routing && !n.routing.on()) return n.routing.routing.name() + " is 'fabric'";
          return "";
        },
        this);
  firmware.library.inert_when(
      [](const void* m, const param_base&) -> std::string {
        const nic& n = *static_cast<const nic*>(m);
        return n.flow_ids_.empty() ? std::string(n.name()) + " sends no flow" : "";
      },
      this);
  for (param_base* p :
       std::initializer_list<param_base*>{&firmware.latency, &firmware.units, &firmware.queue, &firmware.watchdog})
    p->inert_when(
        [](const void* m, const param_base&) -> std::string {
          const nic& n = *static_cast<const nic*>(m);
          return n.firmware.attached() ? "" : std::string(n.name()) + " runs no firmware";
        },
        this);
}

void nic::send_control(tlm::tlm_generic_payload* frame) {
  const packet_header& h = header(*frame);
  if (h.flow_id < flows_.size()) ++flows_[h.flow_id].stats.feedback_tx[static_cast<uint8_t>(h.kind)];
  if (probes::feedback_sent.on()) probes::feedback_sent.emit(this, now_ps(), &h.fields(), 0, h.priority, h.size);
  tx_.queue_control(frame);
}

void nic::limit_changed(uint32_t flow_id) {
  tx_.reschedule(flow_id);
  if (probes::rate_change.on()) {
    probe_event e{now_ps(), nullptr, 0, -1, static_cast<uint64_t>(limiter(flow_id).rate().bps)};
    e.flow_id = flow_id;
    probes::rate_change.publish(this, e);
  }
}

void nic::add_flow(uint32_t flow_id) {
  pacing_limiter& l = limiters_.emplace(flow_id, pacing_limiter(data_rate{0})).first->second;
  l.on_change([this, flow_id] { limit_changed(flow_id); });
  tx_.add_flow(flow_id, l);
  flow_ids_.push_back(flow_id);
}

bool nic::sends(uint32_t flow_id) const { return tx_.limiter_of(flow_id) != nullptr; }

void nic::make_policies() {
  if (policies_made_) return;
  policies_made_ = true;
  np_policy_ = np_policies::instance().make(np.name(), np(), *this, *this, flows_);
  if (np_policy_) set_notification_point(np_policy_.get());
  // A rate update that takes time: each flow's limiter (the default, or one bound) behind a
  // delayed_rate_limiter, which the reaction points (and scripts) then drive.
  if (const uint64_t latency = to_ps(rate_update_latency()); latency > 0)
    for (uint32_t id : flow_ids_) {
      delayed_limiters_.push_back(std::make_unique<delayed_rate_limiter>(limiter(id), latency));
      bind_limiter(id, *delayed_limiters_.back());
    }
  rp_maker_ = rp_policies::instance().make(rp.name(), rp(), *this, port.mac);
  if (firmware.attached()) firmware_maker_ = make_firmware_maker(*this, port.mac, firmware, registers);
  reaction_point_maker* maker = firmware_maker_ ? firmware_maker_.get() : rp_maker_.get();
  if (routing.on()) return make_multipath_flows(maker);
  if (!maker) return;
  for (uint32_t id : flow_ids_) {
    auto r = maker->make(flows_[id], limiter(id));
    if (!r) continue;
    set_reaction_point(id, r.get());
    rp_policies_.push_back(std::move(r));
  }
}

// R3C2: each flow's paths behind one limiter and one reaction point (source_routing.h).
void nic::make_multipath_flows(reaction_point_maker* maker) {
  const std::string on = routing.routing.name() + ": 'r3c2'";
  if (firmware.attached()) throw config_error(on + " does not run with firmware (" + firmware.library.name() + ")");
  if (to_ps(rate_update_latency()) > 0)
    throw config_error(on + " does not run with " + rate_update_latency.name() + " > 0");
  if (!bound_limiters_.empty()) throw config_error(on + " does not run with a bound rate limiter");
  const uint32_t offered = path_plan_ ? path_plan_->count : 1;
  if (routing.paths() > offered)
    throw config_error(routing.paths.name() + ": '" + std::to_string(routing.paths()) + "' is more than the " +
                       std::to_string(offered) + " paths the fabric's trees offer");
  multipath_flow::config c;
  c.paths = routing.paths() ? static_cast<uint32_t>(routing.paths()) : offered;
  c.max_active = static_cast<uint32_t>(std::min<uint64_t>(routing.max_active(), c.paths));
  c.aging_ps = to_ps(routing.aging());
  for (uint32_t id : flow_ids_) {
    const uint32_t dst = flows_[id].spec.dst;
    c.first = path_plan_ && dst < path_plan_->first_by_node.size() ? path_plan_->first_by_node[dst] % c.paths : 0;
    auto m = std::make_unique<multipath_flow>(flows_[id], c, routing.rate_control() ? maker : nullptr);
    bind_limiter(id, *m);
    set_reaction_point(id, m.get());
    multipath_[id] = std::move(m);
  }
}

const multipath_flow* nic::paths_of(uint32_t flow_id) const {
  auto it = multipath_.find(flow_id);
  return it == multipath_.end() ? nullptr : it->second.get();
}

uint64_t nic::path_activations() const {
  uint64_t n = 0;
  for (const auto& [id, m] : multipath_) n += m->activations();
  return n;
}

uint64_t nic::path_notifications() const {
  uint64_t n = 0;
  for (const auto& [id, m] : multipath_) n += m->notifications();
  return n;
}

void nic::start_of_simulation() {
  make_policies();  // if the simulation has not already
  acks_.start(port.gate().classes());
  frame_format format{node_id_, mtu().bytes, header_bytes().bytes, min_frame().bytes};
  if (port.credits)
    for (int sl = 0; sl < max_classes; ++sl) format.class_of[sl] = port.credits->vl_of(sl);
  tx_.start(format);
}

void nic::not_sent(uint32_t flow_id) const {
  throw config_error(std::string(name()) + ": flow " + std::to_string(flow_id) + " is not sent by this NIC");
}

void nic::bind_limiter(uint32_t flow_id, rate_limiter_if& replacement) {
  if (!sends(flow_id)) not_sent(flow_id);
  replacement.on_change([this, flow_id] { limit_changed(flow_id); });
  tx_.bind_limiter(flow_id, &replacement);
  bound_limiters_[flow_id] = &replacement;
}

void nic::set_reaction_point(uint32_t flow_id, reaction_point_if* rp) {
  if (!sends(flow_id)) not_sent(flow_id);
  tx_.set_reaction_point(flow_id, rp);
  rx_.set_reaction_point(flow_id, rp);
  reaction_points_[flow_id] = rp;
}

const reaction_point_if* nic::reaction_point(uint32_t flow_id) const {
  auto it = reaction_points_.find(flow_id);
  return it == reaction_points_.end() ? nullptr : it->second;
}

void nic::derive_policy_defaults() {
  if (np_policy_) np_policy_->derive_defaults();
  if (rp_maker_) rp_maker_->derive_defaults();
  if (firmware_maker_) firmware_maker_->derive_defaults();
}

void nic::check_policies() const {
  if (np_policy_) np_policy_->check();
  if (rp_maker_) rp_maker_->check();
  if (firmware_maker_) firmware_maker_->check();
}

std::string nic::firmware_mailbox(const std::string& message) {
  if (!firmware_maker_)
    throw config_error(std::string(name()) + ": runs no firmware (set " + firmware.library.name() + ")");
  return sluice::firmware_mailbox(*firmware_maker_, message);
}

}  // namespace sluice
