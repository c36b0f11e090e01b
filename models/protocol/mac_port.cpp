#include "models/protocol/mac_port.h"

#include <algorithm>

#include "models/core/stats.h"
#include "models/link/link.h"

namespace sluice {

mac_port::mac_port(sc_core::sc_module_name name, int index, uint64_t mac_address, const std::string& param_prefix)
    : sc_module(name),
      tx("tx"),
      rx("rx"),
      pfc_response(param_prefix + ".pfc.response", sc_core::SC_ZERO_TIME,
                   "delay from a PFC frame's arrival to the pause taking effect (MAC/PHY reaction)",
                   sc_core::SC_ZERO_TIME, sc_core::sc_time(1, sc_core::SC_MS)),
      index_(index),
      mac_(mac_address),
      timers_(event_queue::instance()) {
  rx.register_nb_transport_fw(this, &mac_port::receive);
  add_stat(param_prefix, "frames_sent", "frames", "frames this MAC transmitted (data and PFC)",
           [this] { return static_cast<double>(frames_sent_); });
  add_stat(param_prefix, "pfc.frames_sent", "frames",
           "802.1Qbb frames this MAC queued for transmission (XOFF, refresh, XON)",
           [this] { return static_cast<double>(pfc_sent_); });
  add_stat(param_prefix, "pfc.requests_merged", "requests",
           "PFC requests folded into a PFC frame that was still waiting for the wire",
           [this] { return static_cast<double>(pfc_merged_); });
  add_stat(param_prefix, "pfc.frames_received", "frames", "802.1Qbb frames this MAC received",
           [this] { return static_cast<double>(pfc_received_); });
  for (int i = 0; i < num_priorities; ++i) {
    const std::string prio = param_prefix + ".prio" + std::to_string(i);
    add_stat(prio, "pause_received", "frames", "PFC frames received pausing this priority (non-zero quanta)",
             [this, i] { return static_cast<double>(pause_[i].xoff_frames); });
    add_stat(prio, "resume_received", "frames", "PFC frames received resuming this priority (zero quanta)",
             [this, i] { return static_cast<double>(pause_[i].xon_frames); });
    add_stat(prio, "paused_time", "ns", "time this priority was held paused at this MAC",
             [this, i] { return static_cast<double>(to_ps(paused_time(i, sc_core::sc_time_stamp()))) / 1e3; });
  }
  // One wake-up at a time: at the end of a frame, at a pause or pacing deadline, or on new
  // input. The first, at time 0, lets sources with timed flows schedule their start.
  wake_at(0);
}

void mac_port::wake_at(uint64_t at_ps) { timers_.schedule(this, at_ps); }

void mac_port::on_timer() { try_send(); }

void mac_port::kick() {
  uint64_t now = to_ps(sc_core::sc_time_stamp());
  if (now < busy_until_ps_)
    wake_at(busy_until_ps_);  // look again when the wire frees
  else
    try_send();
}

void mac_port::try_send() {
  uint64_t now = to_ps(sc_core::sc_time_stamp());
  if (now < busy_until_ps_) {
    wake_at(busy_until_ps_);
    return;
  }
  tlm::tlm_generic_payload* p = nullptr;
  if (!control_.empty()) {
    p = control_.pop_front();
  } else if (source_) {
    uint64_t retry = never_ps;
    p = source_->next_frame(*this, now, retry);
    if (!p) {
      if (retry != never_ps) wake_at(std::max(retry, now));
      return;
    }
  } else {
    return;
  }
  ++frames_sent_;
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  tx->nb_transport_fw(*p, phase, delay);
  busy_until_ps_ = now + to_ps(delay);  // END_REQ: the last bit will have left
  uint64_t next = control_.empty() && source_ ? source_->next_ready_ps(*this, busy_until_ps_) : busy_until_ps_;
  if (next != never_ps) wake_at(std::max(next, busy_until_ps_));
}

void mac_port::send_pfc(const pfc_request& request) {
  if (!control_.empty()) {
    // A PFC frame still waiting for the wire takes the new request in (newer timers win), so
    // the control queue never grows: the peer sees the latest state in one frame.
    packet_header& queued = header(*control_[control_.size() - 1]);
    pfc_request merged;
    decode_pfc(queued.bytes, merged);
    for (int i = 0; i < num_priorities; ++i)
      if (request.class_enable >> i & 1) merged.quanta[i] = request.quanta[i];
    merged.class_enable |= request.class_enable;
    encode_pfc(merged, mac_, queued.bytes);
    ++pfc_merged_;
    return;
  }
  tlm::tlm_generic_payload* p = packet_pool::instance().acquire();
  packet_header& h = header(*p);
  h.kind = frame_kind::pfc;
  h.size = pfc_frame_bytes;
  h.created_ps = to_ps(sc_core::sc_time_stamp());
  encode_pfc(request, mac_, h.bytes);
  control_.push_back(p);
  ++pfc_sent_;
  kick();
}

tlm::tlm_sync_enum mac_port::receive(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  packet_header& h = header(p);
  if (h.kind != frame_kind::pfc) {
    sink_->receive_frame(&p, index_);
    return tlm::TLM_COMPLETED;
  }
  pfc_request request;
  if (decode_pfc(h.bytes, request)) {
    ++pfc_received_;
    uint64_t now = to_ps(sc_core::sc_time_stamp());
    uint64_t effective = now + to_ps(pfc_response());
    data_rate rate = link_ ? link_->current_rate() : data_rate{1e9};
    bool shortened = false;
    for (int i = 0; i < num_priorities; ++i) {
      if (!(request.class_enable >> i & 1)) continue;
      uint64_t until = effective + to_ps(pause_duration(request.quanta[i], rate));
      shortened |= until < pause_[i].until_ps;
      apply_pause(i, effective, until);
      ++(request.quanta[i] ? pause_[i].xoff_frames : pause_[i].xon_frames);
    }
    // A resume (or a shorter pause) may let frames go at `effective`: look again then. A longer
    // pause needs no wake-up: the pending one finds the priority still paused and re-arms.
    if (shortened) wake_at(std::max(effective, busy_until_ps_));
  }
  p.release();
  return tlm::TLM_COMPLETED;
}

void mac_port::apply_pause(int priority, uint64_t effective_ps, uint64_t until_ps) {
  pause_state& s = pause_[priority];
  if (s.from_ps <= effective_ps && effective_ps < s.until_ps) {
    s.until_ps = std::max(until_ps, effective_ps);  // refresh or resume an ongoing pause
  } else {
    s.closed_ps += s.until_ps - s.from_ps;
    s.from_ps = effective_ps;
    s.until_ps = until_ps;
  }
}

sc_core::sc_time mac_port::paused_time(int priority, const sc_core::sc_time& now) const {
  const pause_state& s = pause_[priority];
  uint64_t t = to_ps(now);
  uint64_t open = t > s.from_ps ? std::min(t, s.until_ps) - s.from_ps : 0;
  return from_ps(s.closed_ps + open);
}

}  // namespace sluice
