#include "models/link/link.h"

#include <algorithm>

#include "models/core/stats.h"
#include "models/link/direct_hops.h"
#include "models/link/mac_port.h"

namespace sluice {
namespace {

const stat_desc channel_stats[] = {
    {"frames", "frames", "frames that started on this direction (data and control)",
     [](const void* m, int) { return static_cast<double>(stat_model<link_channel>(m).frames()); }, stat_kind::counter},
    {"bytes", "bytes", "wire bytes that started on this direction",
     [](const void* m, int) { return static_cast<double>(stat_model<link_channel>(m).bytes()); }, stat_kind::counter},
    {"busy_time", "ns", "time the transmitter was serializing",
     [](const void* m, int) {
       return static_cast<double>(to_ps(stat_model<link_channel>(m).busy_time(sc_core::sc_time_stamp()))) / 1e3;
     },
     stat_kind::counter},
};
const param_spec<data_rate> rate_spec{
    "rate", "link capacity, each direction", min_rate, min_rate, max_rate, param_change::live};
const param_spec<sc_core::sc_time> delay_spec{"delay",
                                              "propagation delay, each direction",
                                              sc_core::SC_ZERO_TIME,
                                              sc_core::SC_ZERO_TIME,
                                              sc_core::sc_time(1, sc_core::SC_SEC),
                                              param_change::live};
}  // namespace

link_channel::link_channel(sc_core::sc_module_name name) : sc_module(name), in(*this, "in", this), out(*this, "out") {
  event_queue::instance();  // made now, so that current() is this thread's queue while the models run
  add_stats(*this, channel_stats, this);
}

void link_channel::join_from(mac_port& transmitter) {
  if (direct_hops)
    transmitter.transmit_on(*this);
  else
    transmitter.tx.bind(in);
}

void link_channel::join_to(mac_port& receiver) {
  if (direct_hops) {
    out_if_ = &receiver;
    deliver_to(&receiver);
  } else {
    out.bind(receiver.rx);
  }
}

void link_channel::end_of_elaboration() {
  if (out.made()) {  // bound as a socket, to a foreign model or to ours
    out_if_ = out.get().operator->();
    deliver_to(direct_hops ? dynamic_cast<mac_port*>(out_if_) : nullptr);  // ours: the direct hop
  } else if (!out_if_) {
    SC_REPORT_ERROR(name(), "the link direction delivers to no receiver (out)");
  }
}

tlm::tlm_sync_enum link_channel::nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                                 sc_core::sc_time& delay) {
  // The first bit at the kernel's time + delay: the models' time for a transmitter on their
  // clock, a foreign initiator's own annotated time otherwise.
  check_pooled(p);  // the transmitter may be a foreign model
  packet_pool::instance().socket_crossed();
  const uint64_t kernel = kernel_ps();
  const uint64_t first_bit = kernel + to_ps(delay);
  if (phase != tlm::BEGIN_REQ || first_bit < tx_end_ps_) busy_wire_error();
  uint64_t tx_end;
  if (shipper_) {  // the receiver is in another process (our MAC transmits here then too)
    const uint64_t arrives = serialize(header(p).size, first_bit);
    tx_end = tx_end_ps_;
    shipper_->ship(channel_, first_bit, arrives, p);
  } else {
    // Its frames carry their initiator's response status, which the direct hop's receiver would
    // not set (packet_pool::socket_crossed): from now on this direction delivers through the
    // socket. (A shipping direction's receiver, if in this process, still takes accept's frames.)
    deliver_to(nullptr);
    tx_end = start(p, first_bit);
    // start's test of an empty wire trusts the first bit not to be behind a frame ahead that has
    // landed since, which a foreign transmitter's annotated time may be: the head's wake-up, in
    // case start did not ask for it (if it did, this one changes nothing).
    event_queue::current().schedule(this, wire_head_.front().at_ps);
  }
  phase = tlm::END_REQ;
  delay = from_ps(tx_end - kernel);
  return tlm::TLM_UPDATED;
}

void link_channel::deliver_to(mac_port* receiver) {
  out_mac_ = receiver;
  direct_ = receiver != nullptr;
  if (receiver) receiver->receive_from(*this);
  receiver_attached();
}

void link_channel::receiver_attached() {
  if (!out_mac_) return;
  sink_ = out_mac_->sink();
  sink_index_ = out_mac_->index();
}

void link_channel::ship_to(frame_shipper* shipper, uint32_t channel) {
  if (sc_core::sc_get_status() != sc_core::SC_ELABORATION)
    SC_REPORT_ERROR(name(), "ship_to after elaboration: a MAC bound straight to this channel would not ship");
  shipper_ = shipper;
  channel_ = channel;
}

void link_channel::busy_wire_error() const {
  SC_REPORT_ERROR(name(), "frame started while the wire is busy (transmitter ignored END_REQ)");
}

uint64_t link_channel::start_shipped(tlm::tlm_generic_payload& p, uint64_t now) {
  const uint64_t arrives = serialize(header(p).size, now);
  const uint64_t tx_end = tx_end_ps_;  // before the shipper, which may release the frame
  shipper_->ship(channel_, now, arrives, p);
  return tx_end;
}

// The whole-fabric link schedules a frame's arrival when it starts on an empty wire (at
// sent_ps), or else when the frame ahead lands (at that one's arrival): either way at the later
// of the two, also when both fall in one picosecond. This copy learns of the frame later, so it
// schedules as of that time.
void link_channel::accept(uint64_t sent_ps, uint64_t arrives_ps, tlm::tlm_generic_payload* frame) {
  const bool was_empty = wire_head_.empty();
  const uint64_t scheduled = std::max(sent_ps, accepted_arrival_ps_);
  accepted_arrival_ps_ = arrives_ps;
  wire_tail_.make_room(wire_head_);
  wire_tail_.push_in_room(arrives_ps, frame);
  if (was_empty) event_queue::current().schedule_as_of(this, arrives_ps, scheduled);
}

// The head's last bit to our own MAC: the same delivery, no phase or sc_time (direct_hops.h).
// A data frame goes to the MAC's sink, from our copy (what mac_port::take does with it); a
// link-local frame, or any while the probe of arrivals is on, to the MAC. Returns the time it
// landed.
inline uint64_t link_channel::deliver_head() {
  const flight::slot head = wire_head_.pop_front();
  ++thread_counts::packet_hops;
  packet_header& h = header(*head.item);
  ++h.hops;
  if (!mac_port::link_local(h.kind) && !probes::rx_end.on()) [[likely]]
    sink_->receive_frame(head.item, sink_index_);
  else
    out_mac_->arrive(*head.item);
  return head.at_ps;
}

// Woken only for a head that is due (a wire's frames leave only here, in order): the first
// frame needs no test. It is woken at the head's arrival, so that is now: no clock to read.
void link_channel::on_timer() {
  if (!direct_) return deliver_through_socket();
  const uint64_t now = deliver_head();
  if (wire_head_.empty()) return;
  // Rarely a second frame lands in the same picosecond (a zero-byte frame, a shortened delay): it
  // arrives in this wake-up too, out of line, so that the common wake-up keeps no loop's registers.
  const uint64_t next = wire_head_.front().at_ps;
  if (next <= now) [[unlikely]]
    return deliver_due(now);
  event_queue::current().schedule(this, next);
}

void link_channel::deliver_due(uint64_t now) {
  do deliver_head();
  while (!wire_head_.empty() && wire_head_.front().at_ps <= now);
  if (!wire_head_.empty()) event_queue::current().schedule(this, wire_head_.front().at_ps);
}

// The same for a foreign receiver, with the TLM phase and the last bit's delay on the stack.
void link_channel::deliver_through_socket() {
  const uint64_t now = now_ps();
  do {
    tlm::tlm_generic_payload* p = wire_head_.pop_front().item;
    ++thread_counts::packet_hops;
    ++header(*p).hops;
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_core::sc_time delay = ahead();  // the last bit at the models' time
    out_if_->nb_transport_fw(*p, phase, delay);
  } while (!wire_head_.empty() && wire_head_.front().at_ps <= now);
  if (!wire_head_.empty()) event_queue::current().schedule(this, wire_head_.front().at_ps);
}

sc_core::sc_time link_channel::busy_time(const sc_core::sc_time& now) const {
  uint64_t ahead = tx_end_ps_ > to_ps(now) ? tx_end_ps_ - to_ps(now) : 0;
  return from_ps(counted_busy_ps() - ahead);
}

link::link(sc_core::sc_module_name name, data_rate default_rate, sc_core::sc_time default_delay)
    : sc_module(name), rate(this, rate_spec, default_rate), delay(this, delay_spec, default_delay), ab("ab"), ba("ba") {
  set_channels(default_rate, default_delay);
  rate.on_change(this);
  delay.on_change(this);
}

// Overrides are applied after construction: the channels take the final values here.
void link::start_of_simulation() { set_channels(rate(), delay()); }

void link::set_channels(data_rate r, sc_core::sc_time d) {
  set_channel_rates(r);
  ab.delay_ps_ = ba.delay_ps_ = to_ps(d);
}

void link::set_rate(data_rate r) {
  if (!(r.bps > 0)) SC_REPORT_ERROR(name(), "link rate must be positive");
  rate.set(r);
  set_channel_rates(r);
}

void link::set_channel_rates(data_rate r) {
  for (link_channel* c : {&ab, &ba}) {
    c->fold_counts();
    c->rate_ = r;
    c->ser_bytes_ = c->ser_ps_ = 0;  // the serialization of 0 B: none cached at the old rate
  }
}

// A run-time write to `rate` or `delay`: frames that start from now on see it; frames on the
// wire keep their times (a shorter delay never lets a frame overtake the one ahead).
void link::param_changed(const param_base&) { set_channels(rate(), delay()); }

uint64_t link::packet_hops() {
  return thread_counts::packet_hops + thread_counts::handed_packet_hops.load(std::memory_order_relaxed);
}

}  // namespace sluice
