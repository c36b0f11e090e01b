#include "models/nic/tx_scheduler.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <typeinfo>

namespace sluice {

tx_scheduler::tx_scheduler(mac_port& mac, flow_control_if& gate, flow_table& flows, int classes)
    : pfc_gate_(typeid(gate) == typeid(pfc) ? static_cast<const pfc*>(&gate) : nullptr),
      flows_(flows),
      class_(std::make_unique<class_state[]>(classes)),
      mac_(mac),
      gate_(gate),
      classes_(classes) {
  if (pfc_gate_) static_cast<pfc&>(gate).share_pauses_end(pauses_end_ps_);
}

tx_scheduler::~tx_scheduler() {
  if (pfc_gate_) static_cast<pfc&>(gate_).unshare_pauses_end(pauses_end_ps_);
}

void tx_scheduler::add_flow(uint32_t flow_id, rate_limiter_if* limiter, reaction_point_if* rp) {
  flows_[flow_id].sender_slot = static_cast<uint32_t>(senders_.size());
  sender s;
  s.flow_id = flow_id;
  s.limiter = limiter;
  s.rp = rp;
  senders_.push_back(s);
}

void tx_scheduler::add_flow(uint32_t flow_id, pacing_limiter& own) {
  add_flow(flow_id, &own, nullptr);
  senders_.back().own = &own;
  set_paths(senders_.back());
}

uint32_t tx_scheduler::slot_of(uint32_t flow_id) const {
  if (flow_id >= flows_.size() || !sends(flow_id))
    throw std::out_of_range("tx_scheduler: flow " + std::to_string(flow_id) + " is not sent here");
  return flows_[flow_id].sender_slot;
}

void tx_scheduler::bind_limiter(uint32_t flow_id, rate_limiter_if* limiter) {
  sender& s = senders_[slot_of(flow_id)];
  s.limiter = limiter;
  s.own = nullptr;
  set_paths(s);
}

void tx_scheduler::set_reaction_point(uint32_t flow_id, reaction_point_if* rp) {
  sender& s = senders_[slot_of(flow_id)];
  s.rp = rp;
  set_paths(s);
}

void tx_scheduler::start(const frame_format& format) {
  format_ = format;
  for (sender& s : senders_) {
    const flow& f = flows_[s.flow_id];
    s.finite = f.spec.kind == flow_kind::finite;
    s.onoff = f.spec.kind == flow_kind::onoff;
    s.start_ps = to_ps(f.spec.start);
    s.size = f.spec.size;
    s.full_bytes = frame_bytes(format_.mtu);
    s.source = f.spec.rate.bps > 0 ? f.spec.rate : data_rate{0};
    frame_fields& h = s.header;
    h.kind = frame_kind::data;
    h.priority = format_.class_of[f.spec.priority];
    h.sl = f.spec.priority;
    h.flow_id = f.id;
    h.payload = static_cast<uint32_t>(format_.mtu);  // a full frame's (the short path's)
    h.src = format_.node_id;
    h.dst = f.spec.dst;
    set_paths(s);
  }
  // Flows starting together are queued in the order they were added.
  for (uint32_t i = 0; i < senders_.size(); ++i) push(i, ready_ps(senders_[i]));
}

uint64_t tx_scheduler::next_on_ps(const sender& s, uint64_t t) const {
  const flow_spec& f = flows_[s.flow_id].spec;
  const uint64_t on = to_ps(f.on), period = on + to_ps(f.off);
  const uint64_t phase = (t - s.start_ps) % period;
  return phase >= on ? t + (period - phase) : t;  // wait for the next on-period
}

void tx_scheduler::reschedule(uint32_t flow_id) {
  if (flow_id >= flows_.size() || !sends(flow_id)) return;
  const uint32_t slot = flows_[flow_id].sender_slot;
  if (building_ != no_sender) {
    // A frame is being built, its sender still on top. A pop before building took it out of
    // the heap: its own change is read when it goes back (below), another flow's is ordered
    // without it, so it is taken out now and pushed back after (the same keys, in the same order).
    if (slot == building_) return;
    if (senders_[building_].heap_pos >= 0) pop();
  }
  sender& s = senders_[slot];
  if (s.heap_pos < 0) return;  // parked or finished: looked at again when it returns
  uint64_t ready = ready_ps(s);
  uint64_t old = s.ready;
  s.ready = ready;
  s.order = order_++;
  if (ready < old)
    sift_up(static_cast<std::size_t>(s.heap_pos));
  else
    sift_down(static_cast<std::size_t>(s.heap_pos));
  mac_.wake_at(heap_.empty() ? ready : senders_[heap_[0]].ready);
}

void tx_scheduler::queue_control(tlm::tlm_generic_payload* frame) {
  const packet_header& h = header(*frame);
  if (h.priority >= gate_.classes())
    SC_REPORT_ERROR("sluice/tx_scheduler", "control frame of a class this port does not have");
  class_state& c = class_[h.priority];
  c.control.push_back(frame);
  control_mask_ |= 1u << h.priority;
  ++c.sent.control_in;
  c.sent.control_in_bytes += h.size;
  mac_.kick();
}

// A flow's frames carry format_.mtu bytes of payload each but for a finite flow's last, which
// carries what is left (nothing, for an empty flow: the one frame it sends), so a sender's frames
// and their wire bytes follow from the bytes it sent; the format is fixed from start() on.
tx_scheduler::class_counters tx_scheduler::sent(int cls) const {
  class_counters c;
  static_cast<control_counters&>(c) = class_[cls].sent;
  for (const sender& s : senders_) {
    if (s.header.priority != cls) continue;
    const uint64_t full = s.sent / format_.mtu, rest = s.sent % format_.mtu;
    c.frames += full;
    c.bytes += full * s.full_bytes;
    if (rest != 0 || (s.finished && s.sent == 0)) {
      ++c.frames;
      c.bytes += frame_bytes(rest);
    }
  }
  return c;
}

uint64_t tx_scheduler::control_queued_bytes(int cls) const {
  uint64_t bytes = 0;
  const ring<tlm::tlm_generic_payload*>& control = class_[cls].control;
  for (std::size_t i = 0; i < control.size(); ++i) bytes += header(*control[i]).size;
  return bytes;
}

void tx_scheduler::unpark(uint64_t now_ps) {
  for (uint32_t mask = parked_mask_; mask; mask &= mask - 1) {
    int cls = __builtin_ctz(mask);
    if (!may_send(cls, static_cast<uint32_t>(format_.min_frame), now_ps)) continue;
    std::vector<uint32_t>& parked = class_[cls].parked;
    for (uint32_t i : parked) push(i, ready_ps(senders_[i]));
    parked.clear();
    parked_mask_ &= ~(1u << cls);
  }
}

// A NIC sending one flow at its own pace, parked alone, whose class our PFC has opened again
// (each pause of the incast's senders ends so): put back on the empty heap as unpark would, with
// neither its loop nor its calls (push, a limiter's ready time). False, having done nothing, in
// any other case.
inline bool tx_scheduler::unpark_alone(uint64_t now_ps) {
  const uint32_t mask = parked_mask_;
  if ((mask & (mask - 1)) != 0 || !heap_.empty()) return false;
  const int cls = __builtin_ctz(mask);
  std::vector<uint32_t>& parked = class_[cls].parked;
  if (parked.size() != 1) return false;
  const uint32_t i = parked[0];
  sender& s = senders_[i];
  if (!s.fast || pfc_gate_->pfc::paused(cls, now_ps, pauses_end_ps_)) return false;  // fast: pfc_gate_ is set
  s.ready = fast_ready_ps(s);
  s.order = order_++;
  s.heap_pos = 0;
  heap_.push_back(i);
  top_ = i;
  parked.clear();
  parked_mask_ = 0;
  return true;
}

tlm::tlm_generic_payload* tx_scheduler::next_control_frame(uint64_t now_ps, uint64_t& retry_ps) {
  for (uint32_t mask = control_mask_; mask; mask &= mask - 1) {
    int cls = __builtin_ctz(mask);
    class_state& c = class_[cls];
    tlm::tlm_generic_payload* p = c.control.front();
    const packet_header& h = header(*p);
    if (!may_send(cls, h.size, now_ps)) {
      on_waiting(cls, h.size);
      retry_ps = std::min(retry_ps, blocked_until_ps(cls, now_ps));
      continue;
    }
    c.control.pop_front();
    if (c.control.empty()) control_mask_ &= ~(1u << cls);
    ++control_frames_[static_cast<int>(h.kind)];
    ++c.sent.control_out;
    c.sent.control_out_bytes += h.size;
    return p;
  }
  return nullptr;
}

// Inlined where it is used (next_frame's short path, send_general): a call and its register
// saves were 20 instructions a frame. plain: the sender's own pacer and no reaction point;
// fast: plain and its own pace (sender::fast), the wire's rate not asked.
template <bool plain, bool fast>
[[gnu::always_inline]] inline tlm::tlm_generic_payload* tx_scheduler::build(sender& s, uint64_t payload, uint32_t bytes,
                                                                            uint64_t now_ps) {
  tlm::tlm_generic_payload* p = packet_pool::instance().acquire_as(s.header);
  packet_header& h = header(*p);
  h.payload = static_cast<uint32_t>(payload);
  h.size = bytes;
  h.seq = s.sent;
  h.created_ps = now_ps;
  s.sent += payload;
  flows_[s.flow_id].stats.tx_bytes += payload;
  const data_rate source = fast || s.source.bps > 0 ? s.source : mac_.wire().current_rate();
  if (plain || s.own) {
    s.own->pacing_limiter::on_send(now_ps, bytes, source);
  } else {
    s.limiter->on_send(now_ps, bytes, source);
  }
  if (!plain && s.rp) {
    s.rp->tag(h);
    s.rp->on_send(h, now_ps);
  }
  s.finished = s.finite && s.sent >= s.size;
  return p;
}

// The common frame on a path that calls nothing and so saves no registers (the loop below saved
// six and kept a frame, ≈ 20 instructions a frame): nothing the NIC made waits and no class is
// parked, the top flow is due, plain (its own pacer, no reaction point) and paced at its own rate,
// its frame full, our PFC leaves its class open and the pool has a payload. The rare ends of the
// path (the flow finished, a heap to walk) are tail calls (sender::fast). Anything else: next_frame_any.
tlm::tlm_generic_payload* tx_scheduler::next_frame(uint64_t now_ps, uint64_t& retry_ps) {
  if ((control_mask_ | parked_mask_) == 0 && top_ != no_sender) {
    sender& s = senders_[top_];
    if (s.ready > now_ps) {  // as serve_heap answers with nothing parked
      retry_ps = std::min(retry_ps, s.ready);
      return nullptr;
    }
    const uint32_t mtu = s.header.payload;  // format_.mtu, from the sender's header line
    if (s.fast && !(s.finite && s.size - s.sent < mtu)) {
      if (pfc_gate_->pfc::paused(s.header.priority, now_ps, pauses_end_ps_)) return park_top(now_ps, retry_ps);
      if (packet_pool::instance().has_free()) {
        tlm::tlm_generic_payload* p = build<true, true>(s, mtu, s.full_bytes, now_ps);
        if (s.finished) return pop_then(p);
        s.ready = fast_ready_ps(s);
        s.order = order_++;
        // A NIC sending one flow: its heap holds it alone, in place (the senders' count is in
        // this line, the heap's in the next).
        return senders_.size() > 1 ? sift_down_then(p) : p;
      }
    }
  }
  return next_frame_any(now_ps, retry_ps);
}

tlm::tlm_generic_payload* tx_scheduler::pop_then(tlm::tlm_generic_payload* p) {
  pop();
  return p;
}

tlm::tlm_generic_payload* tx_scheduler::sift_down_then(tlm::tlm_generic_payload* p) {
  sift_down(0);
  return p;
}

// What serve_heap does with this top flow (due, its frame full, its class paused: 0.07 frames a
// hop in the incast), without next_frame_any's tests and serve_heap's first round. With nothing
// left on the heap, serve_heap's end: no class was parked before, so the retry is this pause's end.
tlm::tlm_generic_payload* tx_scheduler::park_top(uint64_t now_ps, uint64_t& retry_ps) {
  const uint32_t i = heap_[0];
  const int cls = senders_[i].header.priority;
  park(i, cls, senders_[i].full_bytes);
  if (!heap_.empty()) return serve_heap(now_ps, retry_ps);
  retry_ps = std::min(retry_ps, pfc_gate_->pfc::blocked_until_ps(cls, now_ps));
  return nullptr;
}

// Control frames first, then the classes the gate opened back to the heap, then the heap. Its
// ends are tail calls: back to next_frame when an unpark leaves nothing waiting (a paused class's
// first frame after its pause, 0.07 frames a hop), not a call from inside a loop that kept six
// registers and returned through it (≈ 20 instructions).
tlm::tlm_generic_payload* tx_scheduler::next_frame_any(uint64_t now_ps, uint64_t& retry_ps) {
  if (control_mask_)
    if (tlm::tlm_generic_payload* p = next_control_frame(now_ps, retry_ps)) return p;
  if (parked_mask_) {
    if (!unpark_alone(now_ps)) unpark(now_ps);
    // The fast path, if it applies: this class's own, a jump (not through the vtable).
    if ((control_mask_ | parked_mask_) == 0) return tx_scheduler::next_frame(now_ps, retry_ps);
  }
  return serve_heap(now_ps, retry_ps);
}

tlm::tlm_generic_payload* tx_scheduler::serve_heap(uint64_t now_ps, uint64_t& retry_ps) {
  while (!heap_.empty()) {
    const uint32_t i = heap_[0];
    sender& s = senders_[i];
    if (s.ready > now_ps) {
      retry_ps = std::min(retry_ps, s.ready);
      break;
    }
    const int cls = s.header.priority;
    uint64_t payload = format_.mtu;
    uint32_t bytes = s.full_bytes;
    if (s.finite && s.size - s.sent < payload) {  // the flow's last frame
      payload = s.size - s.sent;
      bytes = frame_bytes(payload);
    }
    if (!may_send(cls, bytes, now_ps)) {  // park with its class until the gate opens
      park(i, cls, bytes);
      continue;
    }
    if (s.plain) {  // nothing reschedules a flow while the frame is built: it stays on top meanwhile
      tlm::tlm_generic_payload* p = build<true, false>(s, payload, bytes, now_ps);
      if (s.finished)
        pop();
      else
        requeue_top(ready_ps(s));
      return p;
    }
    if (tlm::tlm_generic_payload* p = send_general(i, payload, bytes, now_ps)) return p;
  }
  for (uint32_t mask = parked_mask_; mask; mask &= mask - 1) {
    int cls = __builtin_ctz(mask);
    retry_ps = std::min(retry_ps, blocked_until_ps(cls, now_ps));
  }
  return nullptr;
}

void tx_scheduler::park(uint32_t i, int cls, uint32_t bytes) {
  on_waiting(cls, bytes);
  pop();
  class_[cls].parked.push_back(i);
  parked_mask_ |= 1u << cls;
}

// The frame of the top sender i, whose class may send, when its limiter is bound or it has a
// reaction point; null if a bound limiter moved its time without telling (the sender re-ordered).
tlm::tlm_generic_payload* tx_scheduler::send_general(uint32_t i, uint64_t payload, uint32_t bytes, uint64_t now_ps) {
  sender& s = senders_[i];
  if (!s.own) {
    const uint64_t ready = ready_ps(s);
    if (ready > now_ps) {  // a bound limiter moved its time without telling: re-order
      requeue_top(ready);
      return nullptr;
    }
  }
  // The sender stays on top while its frame is built, then moves down once: a pop and a push
  // cost two walks of the heap. It counts as out of the heap meanwhile (see reschedule).
  building_ = i;
  tlm::tlm_generic_payload* p = build<false, false>(s, payload, bytes, now_ps);
  building_ = no_sender;
  if (s.heap_pos < 0) {  // taken out while building
    if (!s.finished) push(i, ready_ps(s));
  } else if (s.finished) {
    pop();
  } else {
    requeue_top(ready_ps(s));
  }
  return p;
}

uint64_t tx_scheduler::next_ready_ps(uint64_t now_ps) const {
  if (control_mask_ | parked_mask_) return next_ready_gated_ps(now_ps);
  return top_ == no_sender ? std::max(never_ps, now_ps) : std::max(senders_[top_].ready, now_ps);
}

uint64_t tx_scheduler::next_ready_gated_ps(uint64_t now_ps) const {
  uint64_t next = never_ps;
  for (uint32_t mask = control_mask_; mask; mask &= mask - 1) {
    int cls = __builtin_ctz(mask);
    const packet_header& h = header(*class_[cls].control.front());
    // A class only new input opens (credits) is looked at now anyway: next_frame then tells the
    // gate the frame waits, at the real time it starts waiting.
    const uint64_t open = may_send(cls, h.size, now_ps) ? now_ps : blocked_until_ps(cls, now_ps);
    next = std::min(next, open == never_ps ? now_ps : open);
  }
  for (uint32_t mask = parked_mask_; mask; mask &= mask - 1) {
    int cls = __builtin_ctz(mask);
    next = std::min(
        next, may_send(cls, static_cast<uint32_t>(format_.min_frame), now_ps) ? now_ps : blocked_until_ps(cls, now_ps));
  }
  // The heap's top at its ready time, even if its class is closed then: next_frame parks it and
  // serves the flows behind it (waiting for the top's gate would starve every other class).
  if (top_ != no_sender) next = std::min(next, std::max(senders_[top_].ready, now_ps));
  return next <= now_ps ? now_ps : next;
}

void tx_scheduler::push(uint32_t i, uint64_t ready) {
  sender& s = senders_[i];
  s.ready = ready;
  s.order = order_++;
  heap_.push_back(i);
  s.heap_pos = static_cast<int>(heap_.size() - 1);
  if (heap_.size() > 1)
    sift_up(heap_.size() - 1);
  else
    top_ = i;  // the only one (a NIC sending one flow): in place
}

void tx_scheduler::pop() {
  uint32_t top = heap_[0];
  uint32_t last = heap_.back();
  heap_.pop_back();
  senders_[top].heap_pos = -1;
  if (top != last) {
    place(0, last);
    sift_down(0);
  } else {
    top_ = no_sender;
  }
}

void tx_scheduler::sift_up(std::size_t pos) {
  uint32_t i = heap_[pos];
  while (pos > 0) {
    std::size_t parent = (pos - 1) / 2;
    if (!before(i, heap_[parent])) break;
    place(pos, heap_[parent]);
    pos = parent;
  }
  place(pos, i);
}

void tx_scheduler::sift_down(std::size_t pos) {
  uint32_t i = heap_[pos];
  const std::size_t n = heap_.size();
  for (;;) {
    std::size_t child = 2 * pos + 1;
    if (child >= n) break;
    if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
    if (!before(heap_[child], i)) break;
    place(pos, heap_[child]);
    pos = child;
  }
  place(pos, i);
}

}  // namespace sluice
