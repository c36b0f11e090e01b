#include "models/switch/switch_model.h"

#include <algorithm>
#include <typeinfo>

#include "models/core/frame_kinds.h"
#include "models/core/probe.h"
#include "models/core/stats.h"
#include "models/protocol/cnm_frame.h"
#include "models/protocol/ethernet.h"
#include "models/switch/switch_policies.h"

namespace sluice {
namespace {
const stat_desc switch_stats[] = {
    {"unroutable", "frames", "frames dropped for want of a route",
     [](const void* m, int) { return static_cast<double>(stat_model<switch_model>(m).unroutable()); },
     stat_kind::counter},
};

const param_spec<sc_core::sc_time> pipeline_spec{
    "pipeline",
    "store-and-forward latency: a frame may leave its egress queue this long after its last bit arrived",
    sc_core::sc_time(500, sc_core::SC_NS),
    sc_core::SC_ZERO_TIME,
    sc_core::sc_time(1, sc_core::SC_MS),
    param_change::live};
const param_spec<sc_core::sc_time> forwarding_latency_spec{
    "forwarding_latency",
    "time the forwarding block takes to answer a lookup, after admission and before the egress queue "
    "(0: immediate; > 0: the split-phase path, lookups answered in arrival order, as an RTL or firmware block)",
    sc_core::SC_ZERO_TIME, sc_core::SC_ZERO_TIME, sc_core::sc_time(1, sc_core::SC_MS)};
const param_spec<sc_core::sc_time> admission_latency_spec{
    "admission_latency",
    "time the MMU takes to decide a frame's admission after its last bit arrived; the frame waits at ingress, "
    "charged to nothing, and PFC hears the verdict then (0: immediate; > 0: the split-phase path, in arrival "
    "order, as an RTL or firmware buffer manager; the derived pfc.headroom grows by this time at the link rate)",
    sc_core::SC_ZERO_TIME, sc_core::SC_ZERO_TIME, sc_core::sc_time(1, sc_core::SC_MS)};
const choice_spec buffer_release_spec{
    "buffer_release",
    "when a departing frame's bytes return to the ingress buffer: as its first bit leaves (start) or its last (end)",
    "start",
    {"start", "end"}};

}  // namespace

switch_model::switch_model(sc_core::sc_module_name name, uint32_t node_id, int num_ports, int classes, link_layer layer)
    : sc_module(name),
      pipeline(this, pipeline_spec),
      forwarding_latency(this, forwarding_latency_spec),
      admission_latency(this, admission_latency_spec),
      buffer_release(this, buffer_release_spec),
      mmu_port("mmu_port"),
      forwarding_port("forwarding_port"),
      mmu_block("mmu", classes, layer),
      forwarding("forwarding", *this, num_ports),
      registers("regs", "switch", register_device_),
      firmware(this, true),
      node_id_(node_id),
      classes_(classes) {
  add_stats(*this, switch_stats, this);
  probe_registry::instance().declare(probes::feedback_sent, this, this);
  pipeline.on_change(this);
  if (layer == link_layer::ib) forwarding.policy.set_default("lft");  // a linear forwarding table by LID
  forwarding.policy.inert_when(
      [](const void* sw, const param_base&) -> std::string {
        const switch_model& s = *static_cast<const switch_model*>(sw);
        return s.custom_forwarding_ ? std::string(s.name()) + " has forwarding bound by bind_forwarding" : "";
      },
      this);
  for (param_base* p :
       std::initializer_list<param_base*>{&firmware.latency, &firmware.units, &firmware.queue, &firmware.watchdog})
    p->inert_when(
        [](const void* sw, const param_base&) -> std::string {
          const switch_model& s = *static_cast<const switch_model*>(sw);
          return s.firmware.attached() ? "" : std::string(s.name()) + " runs no firmware";
        },
        this);
  // A split-phase block bound by hand answers in its own time: the latency that would make one does nothing.
  for (param_base* p : std::initializer_list<param_base*>{&admission_latency, &forwarding_latency})
    p->inert_when(
        [](const void* sw, const param_base& self) -> std::string {
          const switch_model& s = *static_cast<const switch_model*>(sw);
          if (self.leaf() == std::string("admission_latency"))
            return s.custom_split_mmu_ ? std::string(s.name()) + " has admission bound by bind_split_mmu" : "";
          return s.custom_split_forwarding_ ? std::string(s.name()) + " has forwarding bound by bind_split_forwarding"
                                            : "";
        },
        this);
  for (int i = 0; i < num_ports; ++i)
    ports.push_back(std::make_unique<switch_port>(("port" + std::to_string(i)).c_str(), i,
                                                  eth::mac_address(node_id, static_cast<uint32_t>(i)), classes, *this,
                                                  *this, mmu_port, layer));
  for (auto& p : ports) {
    p->mac.attach(&p->egress, this);
    mmu_block.add_port(*p);
  }
}

// The default blocks are bound last, so bind_mmu / bind_forwarding may replace them during
// elaboration.
void switch_model::before_end_of_elaboration() {
  mmu_port.bind(custom_mmu_ ? *custom_mmu_ : static_cast<mmu_if&>(mmu_block));
  forwarding_port.bind(custom_forwarding_ ? *custom_forwarding_ : static_cast<forwarding_if&>(forwarding));
}

// The bound MMU's classes (the default's until before_end_of_elaboration binds the port).
std::string switch_model::never_pauses() const {
  const mmu_if& m = custom_mmu_ ? *custom_mmu_ : static_cast<const mmu_if&>(mmu_block);
  for (int k = 0; k < classes_; ++k)
    if (m.is_lossless(k)) return "";
  return "no class of " + std::string(name()) + " is lossless (" + name() + ".prio<k>.lossless = false)";
}

void switch_model::make_policies() {
  for (auto& p : ports) p->make_policies(*this);
  // Its parameters (<switch>.firmware.<name>) are declared now, so that the second pass of the
  // overrides sets them.
  if (!firmware_ && firmware.attached()) firmware_ = make_device_firmware(*this, firmware, registers);
}

std::string switch_model::firmware_mailbox(const std::string& message) {
  if (!firmware_) throw config_error(std::string(name()) + ": runs no firmware (set " + firmware.library.name() + ")");
  return firmware_->mailbox_message(message);
}

void switch_model::start_of_simulation() {
  make_policies();  // if the simulation has not already
  if (firmware_) {
    firmware_->derive_defaults();
    firmware_->start();
  }
  mmu_port->set_listener(this);
  const bool at_end = buffer_release() == "end";
  for (auto& p : ports) p->egress.set_release_at_end(at_end);
  mmu_ = mmu_port.operator->();
  own_mmu_ = mmu_ == static_cast<mmu_if*>(&mmu_block) ? &mmu_block : nullptr;
  forward_ = forwarding_port.operator->();
  own_forward_ = forward_ == static_cast<forwarding_if*>(&forwarding) ? &forwarding : nullptr;
  forwarding.make_selector();
  snooper_ = custom_forwarding_ ? nullptr : forwarding.snooper();
  if (custom_split_forwarding_) {
    split_forward_ = custom_split_forwarding_;
  } else if (const uint64_t latency = to_ps(forwarding_latency()); latency > 0) {
    latency_forwarding_ = std::make_unique<latency_forwarding>(*forward_, latency);
    split_forward_ = latency_forwarding_.get();
  }
  if (custom_split_mmu_) {
    split_mmu_ = custom_split_mmu_;
  } else if (const uint64_t latency = to_ps(admission_latency()); latency > 0) {
    latency_mmu_ = std::make_unique<latency_mmu>(*mmu_, latency);
    split_mmu_ = latency_mmu_.get();
  }
  pipeline_ps_ = to_ps(pipeline());
  path_.clear();
  for (auto& p : ports)
    path_.push_back({&p->gate(), &p->egress, p->credits.get(), p->credits ? nullptr : &p->flow_control});
  own_releases_ = own_mmu_ && std::all_of(path_.begin(), path_.end(), [](const port_path& p) { return p.own_pfc; });
  own_path_ = own_releases_ && own_forward_ && !split_forward_ && !split_mmu_ && !snooper_;
}

// A run-time write to `pipeline`: frames arriving from now on take the new latency. Frames
// already queued keep their ready time, and a class queue stays FIFO (only its head is
// checked), so after a decrease no frame leaves before one that arrived earlier in its queue.
void switch_model::param_changed(const param_base&) { pipeline_ps_ = to_ps(pipeline()); }

// The verdict's consequences, immediate or split-phase: PFC hears it, then the frame is dropped or forwarded.
inline void switch_model::hear_admission(int port_index, const packet_header& h, admit_outcome a) {
  const port_path& in = path_[port_index];  // XOFF also when the tipping frame is dropped
  if (!in.own_pfc) {
    in.gate->on_admit(h.priority, h.size, a.xoff_due);
  } else if (a.xoff_due) {
    in.own_pfc->pause_upstream(h.priority);  // pfc::on_admit
  }
}

inline void switch_model::after_admission(tlm::tlm_generic_payload* p, packet_header& h, int port_index,
                                          admit_outcome a, uint64_t now) {
  hear_admission(port_index, h, a);
  if (!a.admitted) return drop_refused(p, port_index);
  if (split_forward_) return split_forward_->request(p, port_index, *this);
  // The built-in block by its qualified name: its table's lookup inline, not a thunk per frame.
  forward(p, own_forward_ ? own_forward_->forwarding_block::route(h, port_index) : forward_->route(h, port_index), now);
}

void switch_model::drop_refused(tlm::tlm_generic_payload* p, int port_index) {
  packet_header& h = header(*p);
  ports[port_index]->count_drop(h.priority);
  if (probes::drop.on())
    probes::drop.emit(&ports[port_index]->egress, now_ps(), &h.fields(), port_index, h.priority, 0);
  p->release();
}

admit_outcome switch_model::admit_through_interface(int port_index, const packet_header& h) {
  admit_outcome a{false, false};
  a.admitted = mmu_->admit(port_index, h.priority, h.size, a.xoff_due);
  return a;
}

void switch_model::receive_frame(tlm::tlm_generic_payload* p, int port_index) {
  packet_header& h = header(*p);
  h.ingress_port = static_cast<uint16_t>(port_index);
  // Our MMU, forwarding block and PFCs, immediate, no snooping policy, the clock read inside a
  // drain (outside, a kernel call): after_admission's steps with one test for the switch's
  // blocks instead of five, and for most frames (admitted with nothing left to do, so nothing
  // for PFC to hear; one way out) no call, so that no registers are saved. The rest is out of
  // line, a tail call each. The clock read once, for the buffer's integral, the pipeline and the
  // queue's.
  if (!own_path_ || !clock_detail::draining()) [[unlikely]]
    return receive_through_seams(p, port_index);
  const uint64_t now = clock_detail::now;
  const admit_rest rest = mmu_block.admit_plain_at(port_index, h.priority, h.size, now);
  if (rest != admit_rest::none) [[unlikely]]
    return finish_admission_then_forward(p, rest, now);
  const int out = forwarding.table.sole_port(h.dst);
  if (out < 0) [[unlikely]]
    return route_then_forward(p, now);         // a choice to make, or no route
  enqueue_after_pipeline(p, path_[out], now);  // no credits on our PFC's ports: the class stays
}

// The ingress port from the header (one register fewer kept by receive_frame).
void switch_model::finish_admission_then_forward(tlm::tlm_generic_payload* p, admit_rest rest, uint64_t now) {
  packet_header& h = header(*p);
  const int in = h.ingress_port;
  after_admission(p, h, in, mmu_block.finish_admission(in, h.priority, h.size, rest), now);
}

void switch_model::route_then_forward(tlm::tlm_generic_payload* p, uint64_t now) {
  const packet_header& h = header(*p);
  forward(p, forwarding.forwarding_block::route(h, h.ingress_port), now);
}

void switch_model::receive_through_seams(tlm::tlm_generic_payload* p, int port_index) {
  packet_header& h = header(*p);
  if (snooper_ && h.kind != frame_kind::data && snoop(h, false)) return p->release();  // acted on here
  if (split_mmu_) return split_mmu_->request(p, port_index, *this);
  // The clock read once, for the buffer's integral, the pipeline and the queue's.
  const uint64_t now = now_ps();
  const admit_outcome a =
      own_mmu_ ? own_mmu_->mmu::admit_at(port_index, h.priority, h.size, now) : admit_through_interface(port_index, h);
  after_admission(p, h, port_index, a, now);
}

// A split-phase MMU's verdict, at the time it is taken: the frame goes on as if it had arrived now.
void switch_model::admitted(tlm::tlm_generic_payload* p, bool admitted, bool xoff_due) {
  check_pooled(*p);  // the frame it was asked about, or a foreign one
  packet_header& h = header(*p);
  after_admission(p, h, h.ingress_port, {admitted, xoff_due}, now_ps());
}

void switch_model::routed(tlm::tlm_generic_payload* p, int out) {
  check_pooled(*p);  // a split-phase forwarding model answers with the frame it was given, or a foreign one
  forward(p, out, now_ps());
}

inline void switch_model::forward(tlm::tlm_generic_payload* p, int out, uint64_t now) {
  if (out < 0) return drop_unroutable(p);
  packet_header& h = header(*p);
  const port_path& to = path_[out];
  if (to.credits) {  // InfiniBand: SL-to-VL of the output port
    const uint8_t vl = to.credits->vl_of(h.sl);
    if (vl != h.priority) {
      h.ingress_cls = h.priority;
      h.priority = vl;
    }
  }
  enqueue_after_pipeline(p, to, now);
}

inline void switch_model::enqueue_after_pipeline(tlm::tlm_generic_payload* p, const port_path& to, uint64_t now) {
  header(*p).ready_ps = now + pipeline_ps_;
  to.egress->enqueue(p, now);
}

void switch_model::inject(tlm::tlm_generic_payload* p) {
  packet_header& h = header(*p);
  h.ingress_port = no_ingress;  // outside MMU accounting
  int out = forwarding_port->route(h, -1);
  if (out < 0) {
    ++unroutable_;
    p->release();
    return;
  }
  h.ready_ps = now_ps();  // made at the egress side: no forwarding pipeline
  if (snooper_ && snoop(h, true)) return p->release();
  if (probes::feedback_sent.on()) probes::feedback_sent.emit(this, now_ps(), &h.fields(), out, h.priority, h.size);
  ports[out]->egress.enqueue(p);
}

void switch_model::release(int ingress_port, int cls, uint32_t bytes, uint64_t now) {
  // Our MMU and PFC: the MMU's release is all (its paused groups' part a tail call); PFC hears
  // XONs through resumed().
  if (own_releases_) [[likely]]
    return own_mmu_->mmu::release_at(ingress_port, cls, bytes, now);
  release_through_interfaces(ingress_port, cls, bytes, now);
}

void switch_model::release_through_interfaces(int ingress_port, int cls, uint32_t bytes, uint64_t now) {
  if (own_mmu_) {  // resumed groups come back through resumed()
    own_mmu_->mmu::release_at(ingress_port, cls, bytes, now);
  } else {
    mmu_->release(ingress_port, cls, bytes);
  }
  const port_path& in = path_[ingress_port];
  if (!in.own_pfc) in.gate->on_release(cls, bytes, false);  // pfc's does nothing without an XON
}

ingress_state_if::pause_check switch_model::recheck_pause(int port, int cls) {
  if (!mmu_port->pg_paused(port, cls)) return pause_check::not_paused;
  return mmu_port->try_resume(port, cls) ? pause_check::resumes_now : pause_check::still_paused;
}

uint64_t switch_model::queue_bytes(int port, const frame_fields& f) const {
  return path_[port].egress->queue(out_class(port, f)).bytes;
}

bool switch_model::blocked(int port, const frame_fields& f, uint64_t now) const {
  return !path_[port].gate->may_send(out_class(port, f), f.size, now);
}

// Congestion notifications travel upstream as feedback frames: QCN CNMs (severity: the quantized
// |Fb| they carry), RoCE CNPs and InfiniBand BECNs (severity 1). Transport ACKs are not.
bool switch_model::snoop(const packet_header& h, bool local) {
  if (h.kind == frame_kind::ack || frame_kind_registry::instance().role(h.kind) != frame_role::feedback) return false;
  uint16_t severity = 1;
  cnm_pdu pdu;
  if (h.kind == frame_kind::cnm && h.image && decode_cnm(*h.image, pdu) && pdu.quantized_feedback > 0)
    severity = pdu.quantized_feedback;
  return snooper_->on_notification(h.fields(), severity, local, now_ps());
}

// The fabric builder checks reachability up front; count rather than crash if one slips by.
void switch_model::drop_unroutable(tlm::tlm_generic_payload* p) {
  packet_header& h = header(*p);
  ++unroutable_;
  release(h.ingress_port, h.priority, h.size, now_ps());
  ports[h.ingress_port]->count_drop(h.priority, true);
  if (probes::drop.on())
    probes::drop.emit(&ports[h.ingress_port]->egress, now_ps(), &h.fields(), h.ingress_port, h.priority, 1);
  p->release();
}

}  // namespace sluice
