#include "models/link/mac_port.h"

#include <algorithm>
#include <typeinfo>

#include "models/core/stats.h"
#include "models/link/direct_hops.h"
#include "models/link/link.h"
#include "models/link/pfc.h"

namespace sluice {
namespace {
const stat_desc mac_stats[] = {
    {"frames_sent", "frames", "frames this MAC transmitted (data and control)",
     [](const void* m, int) { return static_cast<double>(stat_model<mac_port>(m).frames_sent()); }, stat_kind::counter},
    {"bytes_sent", "bytes", "wire bytes this MAC transmitted",
     [](const void* m, int) { return static_cast<double>(stat_model<mac_port>(m).bytes_sent()); }, stat_kind::counter},
};
}  // namespace

mac_port::mac_port(sc_core::sc_module_name name, int index, uint64_t mac_address)
    : sc_module(name), tx(*this, "tx"), rx(*this, "rx", this), mac_(mac_address) {
  index_ = index;
  event_queue::instance();  // made now, so that current() is this thread's queue while the models run
  add_stats(*this, mac_stats, this);
  probe_registry::instance().declare(probes::tx_start, this, this);
  probe_registry::instance().declare(probes::rx_end, this, this);
  // The first look, at time 0, lets sources with timed flows schedule their start.
  wake_at(0);
}

uint64_t mac_port::frames_sent() const { return frames_sent_ + (tx_link_ ? tx_link_->frames() : 0); }
uint64_t mac_port::bytes_sent() const { return bytes_sent_ + (tx_link_ ? tx_link_->bytes() : 0); }

const wire_if& mac_port::wire() const {
  if (!wire_) SC_REPORT_ERROR(name(), "port used before its link was attached");
  return *wire_;
}

void mac_port::attach(frame_source_if* source, frame_sink_if* sink) {
  source_ = source ? source : &no_frames;
  sink_ = sink;
  if (rx_link_) rx_link_->receiver_attached();
}

void mac_port::transmit_on(link_channel& direction) {
  tx_if_ = &direction;
  tx_link_ = &direction;
}

void mac_port::end_of_elaboration() {
  if (tx.made()) {  // bound as a socket, to a foreign model or to ours
    tx_if_ = tx.get().operator->();
    tx_link_ = direct_hops ? dynamic_cast<link_channel*>(tx_if_) : nullptr;  // ours: the direct hop
  } else if (!tx_if_) {
    SC_REPORT_ERROR(name(), "the transmitter is bound to no link (tx)");
  }
  if (tx_link_ && tx_link_->ships()) {  // to another partition: not the direct hop's start, which never ships
    ship_link_ = tx_link_;
    tx_link_ = nullptr;
  }
  // Exactly our PFC: a subclass may answer differently, so it keeps the interface's calls.
  pfc_ = fc_ && typeid(*fc_) == typeid(pfc) ? static_cast<pfc*>(fc_) : nullptr;
}

// Nearly every transmit decision finds no control frame waiting: with our PFC that is a test of
// our flag, in our line (pfc::take_control_frame gives nullptr when none waits, as when a test
// took the frame itself).
inline tlm::tlm_generic_payload* mac_port::take_control_frame(uint64_t now) {
  if (pfc_) {
    if (!pfc_frame_) return nullptr;
    pfc_frame_ = false;
    return pfc_->pfc::take_control_frame(now);
  }
  return fc_ ? fc_->take_control_frame(now) : nullptr;
}

inline bool mac_port::control_frame_ready() const {
  return pfc_ ? pfc_->pfc::control_frame_ready() : fc_->control_frame_ready();
}

// The objects a transmit decision reaches: the source, a gate not our PFC (whose lines the
// decision reads only when a frame of its waits) and the line of our link a start reads (its
// second: link_channel_fields), or a foreign link's fields wherever they are.
void mac_port::warm() const {
  __builtin_prefetch(source_);
  if (!pfc_) __builtin_prefetch(fc_);
  __builtin_prefetch(tx_link_ ? tx_link_->start_line() : static_cast<const void*>(tx_if_));
}

void mac_port::look() {
  if (sending_) {
    again_ = true;  // served once the frame being started is on the wire
    return;
  }
  const uint64_t now = now_ps();
  if (now < busy_until_ps_)
    event_queue::current().schedule(this, busy_until_ps_);
  else
    mac_port::on_timer();
}

void mac_port::inject(tlm::tlm_generic_payload* frame) {
  control_.push_back(frame);
  kick();
}

void mac_port::on_timer() {
  const uint64_t now = now_ps();
  if (now < busy_until_ps_) {
    event_queue::current().schedule(this, busy_until_ps_);
    return;
  }
  sending_ = true;
  again_ = false;
  tlm::tlm_generic_payload* p = take_control_frame(now);
  // After a control frame, look again as soon as the wire is free, whatever the source has, if
  // another waits: the component may have more ready (a credit refresh readies one packet per
  // VL), or an injected one waits. Kept in again_, with a nested request's: the end of the
  // decision then tests one flag.
  if (p) {
    if (control_frame_ready() || !control_.empty()) again_ = true;
  } else if (!control_.empty()) [[unlikely]] {
    p = control_.pop_front();
    if (!control_.empty()) again_ = true;
  }
  uint64_t retry = never_ps;
  if (!p) p = source_->next_frame(now, retry);  // a port attached to no source has no_frames
  sending_ = false;
  if (!p) {
    if (again_)
      event_queue::current().schedule(this, now);
    else
      event_queue::current().schedule(this, std::max(retry, now));  // never_ps schedules nothing
    return;
  }
  packet_header& h = header(*p);
  // Our PFC counts nothing per frame sent (pfc::on_transmit is the interface's empty default):
  // with it, no test of the frame's kind.
  if (!pfc_ && fc_ && !link_local(h.kind)) fc_->on_transmit(h.priority, h.size);
  if (probes::tx_start.on()) probes::tx_start.emit_frame(this, now, h, index_);
  // Our own link: the same END_REQ, no sc_time, no TLM fields (direct_hops.h).
  const uint64_t busy = tx_link_ ? tx_link_->start(*p, now) : transmit_through_socket(*p, now);
  busy_until_ps_ = busy;
  const uint64_t next = again_ ? busy : source_->next_ready_ps(busy);
  // busy is never before now; a wake-up at never_ps is none (no test for it here).
  event_queue::current().schedule(this, std::max(next, busy));
}

uint64_t mac_port::transmit_through_socket(tlm::tlm_generic_payload& p, uint64_t now) {
  const packet_header& h = header(p);
  ++frames_sent_;
  bytes_sent_ += h.size;
  if (ship_link_) return ship_link_->start_shipped(p, now);
  // What a TLM target reads of a frame (packet.h): set here, for the socket path alone.
  packet_pool::instance().socket_crossed();
  p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  p.set_data_length(h.image ? h.size : 0);
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  // The first bit's time as TLM-2.0 annotates it: the kernel's time + delay (the models' clock
  // may run ahead of the kernel); the link answers END_REQ at the kernel's time + delay.
  const uint64_t kernel = now - ahead_ps();
  sc_core::sc_time delay = from_ps(now - kernel);
  tx_if_->nb_transport_fw(p, phase, delay);
  return kernel + to_ps(delay);  // END_REQ: the last bit will have left
}

tlm::tlm_sync_enum mac_port::nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                             sc_core::sc_time& delay) {
  // Observed arrivals take a path of their own (a tail call), so that the probe adds only its
  // test to this function, not the registers the event needs.
  check_pooled(p);  // the link may be a foreign model's
  if (probes::rx_end.on()) return receive_observed(p);
  return receive(p);
}

tlm::tlm_sync_enum mac_port::receive_observed(tlm::tlm_generic_payload& p) {
  const packet_header& h = header(p);
  probes::rx_end.emit_frame(this, now_ps(), h, index_);
  return receive(p);
}

}  // namespace sluice
