#include "models/switch/egress_port.h"

#include <algorithm>
#include <typeinfo>
#include <vector>

#include "models/core/event_queue.h"
#include "models/core/line_arena.h"
#include "models/core/probe.h"
#include "models/link/pfc.h"

namespace sluice {

namespace {
std::vector<uint64_t>& flow_ends_storage() {  // the table's memory; table and count mirror it
  static std::vector<uint64_t> storage;
  return storage;
}
void grow_flow_ends(std::size_t size) {
  std::vector<uint64_t>& storage = flow_ends_storage();
  storage.resize(size, queued_flow_ends::unknown);
  queued_flow_ends::table = storage.data();
  queued_flow_ends::count = static_cast<uint32_t>(storage.size());
}
int flow_ends_scopes = 0;
}  // namespace

bool queued_flow_ends::learn(uint32_t flow, uint64_t ends) {
  if (flow >= max_flows) return false;
  if (flow >= count) {
    // Growing moves the table: not while other threads read it. A windowed run on threads has one
    // for all its flows (simulation reserves it), so a flow beyond them is a hand-made frame: it
    // keeps its payload (pack's false).
    if (clock_detail::lane != nullptr && clock_detail::lane->lanes() > 1) return false;
    // Flow ids are dense from 0: grown to the next power of two at least, as flows show up.
    grow_flow_ends(std::max<std::size_t>(flow + 1, std::size_t{count} * 2));
  }
  uint64_t none = unknown;  // the first to learn the flow sets it; another thread's same ends agree
  __atomic_compare_exchange_n(&table[flow], &none, ends, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return entry(flow) == ends;
}

queued_flow_ends::scope::scope() { ++flow_ends_scopes; }

queued_flow_ends::scope::~scope() {
  if (--flow_ends_scopes > 0) return;
  std::vector<uint64_t>().swap(flow_ends_storage());
  table = nullptr;
  count = 0;
}

void queued_flow_ends::scope::reserve(std::size_t flows) {
  flows = std::min<std::size_t>(flows, max_flows);
  if (flows > count) {
    flow_ends_storage().reserve(flows);  // exactly: resize alone may double
    grow_flow_ends(flows);
  }
}

namespace {
// The ingress priority group a frame's bytes return to: its arrival class (an InfiniBand switch
// may move a frame to another VL on the way out, by the output port's SL-to-VL table).
template <typename frame>  // frame_fields or queued_frame
int arrival_class(const frame& h, int queue) {
  return h.ingress_cls == same_class ? queue : h.ingress_cls;
}
}  // namespace

egress_port::egress_port(mac_port& mac, flow_control_if& gate, buffer_release_if& buffer, int classes)
    : class_(make_line_array<class_state>(static_cast<std::size_t>(classes))),
      mac_(mac),
      // The gate is built before its port's egress (switch_port's members), so its type is final here.
      pfc_gate_(typeid(gate) == typeid(pfc) ? static_cast<const pfc*>(&gate) : nullptr),
      buffer_(buffer),
      classes_(static_cast<uint8_t>(classes)),
      own_blocks_(false),
      release_at_end_(false),
      ahead_(false),
      gate_(gate),
      leaving_(4) {
  // Named under the switch port that holds the MAC: sw0.port3.egress.dequeue, sw0.port3.drop.
  const sc_core::sc_object* port = mac.get_parent_object();
  probe_registry& probes = probe_registry::instance();
  for (const probe_kind* k : {&probes::enqueue, &probes::dequeue, &probes::mark})
    probes.declare(*k, this, port, "egress");
  probes.declare(probes::drop, this, port);
  // Our PFC keeps when its pauses end in the MAC's decision line (pfc_lets).
  if (pfc_gate_) static_cast<pfc&>(gate).share_pauses_end(mac.source_pauses_end());
}

egress_port::~egress_port() {
  if (pfc_gate_) static_cast<pfc&>(gate_).unshare_pauses_end(mac_.source_pauses_end());
  destroy_line_array(class_, classes_);
}

// The congestion point changed the frame's ECN bits or flags (a mark): publish it.
void egress_port::publish_mark(const packet_header& h, uint16_t before) const {
  const uint16_t after = static_cast<uint16_t>(h.ecn | h.flags << 8);
  if (after != before) probes::mark.emit(this, now_ps(), &h.fields(), mac_.index(), h.priority, after);
}

// before: the frame's ECN bits and flags (ecn | flags << 8) before its congestion point saw it.
void egress_port::count_marks(const packet_header& h, uint16_t before) {
  constexpr uint8_t ce = 3;
  if (h.ecn == ce && (before & 0xff) != ce) ++extra(h.priority).marks.ecn;
  if ((h.flags & frame_flags::fecn) && !(before >> 8 & frame_flags::fecn)) ++extra(h.priority).marks.fecn;
}

inline bool egress_port::may_send(int cls, uint32_t bytes, uint64_t now_ps) const {
  return pfc_gate_ ? pfc_gate_->pfc::may_send(cls, bytes, now_ps) : gate_.may_send(cls, bytes, now_ps);
}

inline bool egress_port::pfc_lets(int cls, uint64_t now_ps) const {
  return !pfc_gate_->pfc::paused(cls, now_ps, mac_.source_pauses_end_ps());
}

void egress_port::set_congestion_point(int cls, congestion_point_if* cp) {
  class_state& c = class_[cls];
  c.cp = cp;
  cp_ = static_cast<uint16_t>(cp ? cp_ | 1u << cls : cp_ & ~(1u << cls));
  if (!cp) {  // no frame leaving counts ready_n down now: the lazy count starts again from none
    c.ready_n = 0;
    c.ready_bytes = 0;
  }
}

queue_stats egress_port::queue(int cls) const {
  const class_state& c = class_[cls];
  queue_stats s;
  s.bytes = c.bytes;
  s.frames = c.queue.size();
  s.max_bytes = c.max_bytes;
  s.frames_out = c.frames_out;
  s.bytes_out = c.bytes_out;
  s.frames_in = c.frames_in;
  s.byte_ps = c.byte_ps;
  s.bytes_in = c.bytes_in;
  return s;
}

queue_view egress_port::view(int cls, uint64_t now_ps) {
  class_state& c = class_[cls];
  while (c.ready_n < c.queue.size()) {
    const queued_frame* f = c.ready_n ? c.queue.next(c.ready_last) : &c.queue.front();
    if (f->ready_ps > now_ps) break;
    c.ready_last = f;
    ++c.ready_n;
    c.ready_bytes += f->size();
  }
  return {mac_.index(), cls, c.ready_bytes, static_cast<uint32_t>(c.ready_n), mac_.mac_address(), &gate_, c.bytes};
}

void egress_port::enqueue(tlm::tlm_generic_payload* p, uint64_t now_ps) {
  packet_header& h = header(*p);
  // A class the port does not have would sit in a queue no scheduler looks at: a model error.
  if (h.priority >= classes_) SC_REPORT_ERROR("sluice/egress_port", "frame of a class this port does not have");
  class_state& c = class_[h.priority];
  ++c.frames_in;
  c.bytes_in += h.size;
  if (discard_ >> h.priority & 1) {
    discard(h.priority, h.fields());
    p->release();
    return;
  }
  c.byte_ps -= queue_stats::byte_time(h.size, now_ps);
  c.bytes += h.size;
  c.max_bytes = std::max(c.max_bytes, c.bytes);
  if ((cp_ >> h.priority & 1) && h.kind == frame_kind::data) enqueue_seen(h);
  if (probes::enqueue.on()) probes::enqueue.emit(this, now_ps, &h.fields(), mac_.index(), h.priority, c.bytes);
  if (c.queue.empty()) nonempty_ |= 1u << h.priority;
  queued_frame& e = c.queue.emplace_back();
  if (e.pack(h.fields()) && h.image == nullptr) {
    p->release();
  } else {
    keep_payload(p, e);
  }
  mac_.kick();
}

// Out of line, as enqueue_seen and dequeue_seen: their registers are not saved at every frame.
void egress_port::keep_payload(tlm::tlm_generic_payload* p, queued_frame& e) {
  e.add_flags(frame_flags::kept_payload);
  extra(header(*p).priority).kept.push_back(p);  // its header holds the fields
}

egress_port::class_extra& egress_port::extra(int cls) {
  if (!extra_) extra_ = std::make_unique<class_extra[]>(static_cast<std::size_t>(classes_));
  return extra_[cls];
}

// A data frame arriving at a class with a congestion point: the point sees it (and may mark it).
void egress_port::enqueue_seen(packet_header& h) {
  const uint16_t before = static_cast<uint16_t>(h.ecn | h.flags << 8);
  queue_view v = view(h.priority, now_ps());  // the arriving frame is not in its queue yet
  v.bytes += h.size;                          // the queue it joins, itself included
  ++v.frames;
  class_[h.priority].cp->on_enqueue(h, v);
  if (static_cast<uint16_t>(h.ecn | h.flags << 8) != before) count_marks(h, before);
  if (probes::mark.on()) publish_mark(h, before);
}

// A frame leaving a class with a congestion point: one fewer past the pipeline, and a data
// frame seen by the point.
void egress_port::dequeue_seen(packet_header& h, int q, uint64_t now_ps) {
  class_state& c = class_[q];
  if (c.ready_n) {  // the frame leaving had cleared the pipeline
    --c.ready_n;
    c.ready_bytes -= h.size;
  }
  if (h.kind != frame_kind::data) return;
  const uint16_t before = static_cast<uint16_t>(h.ecn | h.flags << 8);
  class_[q].cp->on_dequeue(h, view(q, now_ps));
  if (static_cast<uint16_t>(h.ecn | h.flags << 8) != before) count_marks(h, before);
  if (probes::mark.on()) publish_mark(h, before);
}

tlm::tlm_generic_payload* egress_port::next_frame(uint64_t now_ps, uint64_t& retry_ps) {
  // One busy class, its head past the pipeline and not paused by our PFC, the built-in scheduler
  // deciding at once (most ports, most frames): no loop over the classes, and no registers saved
  // for the general path.
  const uint32_t busy = nonempty_;
  if (busy && !(busy & (busy - 1)) && own_blocks_) {
    const int q = __builtin_ctz(busy);
    const queued_frame& h = class_[q].queue.front();
    const uint32_t size = h.size();
    if (h.ready_ps <= now_ps && pfc_lets(q, now_ps)) {
      // With one eligible queue the built-in scheduler chooses it (strict or DWRR, every class
      // is one of them), charging its deficit as the general path's call does; unless an idle
      // queue's deficit is to be forfeited first, for which the general path asks it.
      if (own_scheduler_->select_one(q, size)) return take(q, now_ps);
    }
  }
  return next_frame_any(now_ps, retry_ps);
}

tlm::tlm_generic_payload* egress_port::next_frame_any(uint64_t now_ps, uint64_t& retry_ps) {
  uint32_t eligible = 0;
  head_sizes heads{};
  for (uint32_t m = nonempty_; m; m &= m - 1) {
    const int q = __builtin_ctz(m);
    const queued_frame& h = class_[q].queue.front();
    heads[q] = h.size();
    if (!may_send(q, heads[q], now_ps))
      retry_ps = std::min(retry_ps, refused(q, h, now_ps));
    else if (h.ready_ps > now_ps)
      retry_ps = std::min(retry_ps, h.ready_ps);  // still in the pipeline
    else
      eligible |= 1u << q;
  }
  if (!eligible) return nullptr;
  int q = split_           ? split_decision(heads, eligible)
          : own_scheduler_ ? own_scheduler_->egress_scheduler::select(heads, eligible)
                           : scheduler_->select(heads, eligible);
  if (q == awaiting_answer) return nullptr;
  if (split_ && q >= 0 && !(eligible >> q & 1)) {
    // The answered queue closed or emptied while the decision was being taken: ask again.
    q = split_decision(heads, eligible);
    if (q == awaiting_answer) return nullptr;
  }
  if (q < 0 || !(eligible >> q & 1)) {
    // A replacement scheduler that declines (or names an ineligible queue) is asked again one
    // frame time later (the smallest eligible head at the link rate), or sooner on new input.
    if (q >= 0) SC_REPORT_WARNING(mac_.name(), "scheduler selected an ineligible queue; ignored");
    uint32_t smallest = UINT32_MAX;
    for (int i = 0; i < classes_; ++i)
      if (eligible >> i & 1) smallest = std::min(smallest, heads[i]);
    retry_ps =
        std::min(retry_ps, now_ps + std::max<uint64_t>(1, mac_.wire().current_rate().serialization_ps(smallest)));
    return nullptr;
  }
  return take(q, now_ps);
}

// The head frame of class q leaves: its payload (from the pool, or the one it kept), the
// statistics, its congestion point, and its bytes back to the buffer.
tlm::tlm_generic_payload* egress_port::take(int q, uint64_t now_ps) {
  class_state& c = class_[q];
  tlm::tlm_generic_payload* p;
  const queued_frame& e = c.queue.front();  // read in place, then dropped
  if (e.flags() & frame_flags::kept_payload) {
    p = extra_[q].kept.pop_front();
  } else {
    p = packet_pool::instance().acquire_queued();
    e.unpack(q, header(*p).fields());
  }
  packet_header& h = header(*p);
  c.queue.drop_front();
  if (c.queue.empty()) nonempty_ &= ~(1u << q);
  c.byte_ps += queue_stats::byte_time(h.size, now_ps);
  c.bytes -= h.size;
  ++c.frames_out;
  c.bytes_out += h.size;
  if (cp_ >> q & 1) dequeue_seen(h, q, now_ps);
  if (probes::dequeue.on()) probes::dequeue.emit(this, now_ps, &h.fields(), mac_.index(), q, c.bytes);
  if (ahead_ && split_) decide_ahead(now_ps);  // ahead_ first: in the port's first line
  if (h.ingress_port != no_ingress) {
    if (!release_at_end_) {
      buffer_.release(h.ingress_port, arrival_class(h, q), h.size, now_ps);
    } else {
      uint64_t end = now_ps + mac_.wire().current_rate().serialization_ps(h.size);
      leaving_.push_back({end, h.ingress_port, static_cast<uint8_t>(arrival_class(h, q)), h.size});
      event_queue::instance().schedule(&timer_, leaving_.front().end_ps);
    }
  }
  return p;
}

int egress_port::split_decision(const head_sizes& heads, uint32_t eligible) {
  request_decision(heads, eligible);
  if (!answered_) return awaiting_answer;
  answered_ = false;
  return answer_;
}

void egress_port::request_decision(const head_sizes& heads, uint32_t eligible) {
  if (answered_ || asking_) return;
  asking_ = requesting_ = true;
  split_->request(heads, eligible, *this);
  requesting_ = false;
}

// The next decision, asked as a frame starts on the wire: the classes whose head has cleared the
// pipeline and that the gate lets send now. Taken when the wire frees if its class still may
// send, else asked again (next_frame).
void egress_port::decide_ahead(uint64_t now_ps) {
  uint32_t eligible = 0;
  head_sizes heads{};
  for (uint32_t m = nonempty_; m; m &= m - 1) {
    const int q = __builtin_ctz(m);
    const queued_frame& h = class_[q].queue.front();
    heads[q] = h.size();
    if (h.ready_ps <= now_ps && may_send(q, heads[q], now_ps)) eligible |= 1u << q;
  }
  if (eligible) request_decision(heads, eligible);
}

void egress_port::scheduled(int queue) {
  asking_ = false;
  answered_ = true;
  answer_ = queue;
  if (!requesting_) mac_.kick();  // a later answer: the port looks for its frame now
}

void egress_port::discard(int cls, const frame_fields& f) {
  discarded& d = extra(cls).dropped;
  ++d.frames;
  d.bytes += f.size;
  const uint64_t now = now_ps();
  if (f.ingress_port != no_ingress) buffer_.release(f.ingress_port, arrival_class(f, cls), f.size, now);
  if (probes::drop.on()) probes::drop.emit(this, now, &f, mac_.index(), cls, 2);  // 2: the PFC watchdog
}

void egress_port::set_discard(int cls, bool on) {
  const uint32_t bit = 1u << cls;
  if (!on) {
    discard_ &= ~bit;
    return;
  }
  discard_ |= bit;
  class_state& c = class_[cls];
  while (!c.queue.empty()) {
    const queued_frame e = c.queue.pop_front();
    c.byte_ps += queue_stats::byte_time(e.size(), now_ps());
    c.bytes -= e.size();
    if (e.flags() & frame_flags::kept_payload) {
      tlm::tlm_generic_payload* kept = extra_[cls].kept.pop_front();
      discard(cls, header(*kept).fields());
      kept->release();
    } else {
      frame_fields f;
      e.unpack(cls, f);
      discard(cls, f);
    }
  }
  c.ready_n = 0;  // nothing left past the pipeline either
  c.ready_bytes = 0;
  nonempty_ &= ~bit;
}

void egress_port::on_timer() {
  const uint64_t now = now_ps();
  while (!leaving_.empty() && leaving_.front().end_ps <= now) {
    in_flight f = leaving_.pop_front();
    buffer_.release(f.ingress_port, f.cls, f.bytes, now);
  }
  if (!leaving_.empty()) event_queue::instance().schedule(&timer_, leaving_.front().end_ps);
}

// A head frame the gate refuses at now_ps (real time): if it has cleared the pipeline it waits
// for the gate from now (the gate hears it: credit starvation starts here); a gate that only new
// input opens is looked at again when the frame clears the pipeline, to hear it then.
uint64_t egress_port::refused(int q, const queued_frame& h, uint64_t now_ps) {
  const uint64_t open = gate_.blocked_until_ps(q, now_ps);
  if (h.ready_ps <= now_ps) {
    gate_.on_waiting(q, h.size());
    return open;
  }
  return open == never_ps ? h.ready_ps : open;
}

bool egress_port::holds_from(int cls, int ingress_port, int ingress_cls) const {
  return class_[cls].queue.any_of(
      [&](const queued_frame& f) { return f.ingress_port == ingress_port && arrival_class(f, cls) == ingress_cls; });
}

uint64_t egress_port::next_ready_ps(uint64_t now_ps) const {
  // No busy class, or one behind our PFC (most ports): the answer inline, with no loop and no
  // registers saved for the general one.
  const uint32_t busy = nonempty_;
  if (!busy) return never_ps;  // an idle port (after its own PFC frame): no call
  if (!(busy & (busy - 1)) && pfc_gate_) {
    const int q = __builtin_ctz(busy);
    const queued_frame& h = class_[q].queue.front();
    if (pfc_lets(q, now_ps)) return std::max(h.ready_ps, now_ps);
  }
  return next_ready_any(now_ps);
}

uint64_t egress_port::next_ready_any(uint64_t now_ps) const {
  uint64_t next = never_ps;
  for (uint32_t m = nonempty_; m; m &= m - 1) {
    const int q = __builtin_ctz(m);
    const queued_frame& h = class_[q].queue.front();
    // A class only new input opens (credits): look when its frame is ready anyway, so that
    // next_frame tells the gate it waits at the real time it starts waiting.
    uint64_t t = h.ready_ps;
    if (!may_send(q, h.size(), now_ps)) {
      const uint64_t open = gate_.blocked_until_ps(q, now_ps);
      if (open != never_ps) t = open;
    }
    if (t <= now_ps) return now_ps;
    next = std::min(next, t);
  }
  return next;
}

}  // namespace sluice
