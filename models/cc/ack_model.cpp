#include "models/cc/ack_model.h"

#include <string>

#include "models/core/stats.h"
#include "models/protocol/roce_frame.h"

namespace sluice {
namespace {
using sc_core::sc_time;
const param_spec<bool> enable_spec{"ack.enable",
                                   "transport ACKs: the receiver acknowledges the data it receives (RoCE RC); off "
                                   "unless a scheme or profile needs them (timely, hpcc-sim)",
                                   false, false, true};
const param_spec<uint64_t> frames_spec{"ack.every_frames",
                                       "transport ACKs: one ACK per this many data frames of a flow, 0: not by count "
                                       "(HPCC-sim L2_ACK_INTERVAL: 1)",
                                       1, 0, 1u << 20};
const param_spec<byte_count> bytes_spec{"ack.every_bytes",
                                        "transport ACKs: one ACK each time a flow's byte offset crosses a multiple of "
                                        "this, 0: not by bytes (TIMELY: its segment)",
                                        byte_count{0}, byte_count{0}, byte_count{1ull << 32}};
const param_spec<sc_time> timer_spec{"ack.timer",
                                     "transport ACKs: a frame left unacknowledged this long is acknowledged then, 0: "
                                     "no timer",
                                     sc_core::SC_ZERO_TIME, sc_core::SC_ZERO_TIME, sc_time(1, sc_core::SC_SEC)};
const param_spec<byte_count> size_spec{"ack.size", "transport ACKs: wire size of an ACK (RoCEv2 ACK with AETH: 70 B)",
                                       byte_count{roce::ack_bytes}, byte_count{1}, byte_count{9216}};
const choice_spec& priority_spec() {
  static const choice_spec spec = [] {
    std::vector<std::string> choices{"data", "high"};
    for (int k = 0; k < max_classes; ++k) choices.push_back(std::to_string(k));
    return choice_spec{"ack.priority",
                       "transport ACKs: their class: the data frame's (data), the fabric's highest (high: the class "
                       "a strict scheduler serves first; HPCC-sim's ACK_HIGH_PRIO) or a class number",
                       "data", choices};
  }();
  return spec;
}
double read_timer_acks(const void* m, int) {
  return static_cast<double>(static_cast<const ack_model*>(m)->timer_acks());
}
const stat_desc ack_stats[] = {
    {"timer_acks", "frames", "ACKs sent when the coalescing timer ran out", read_timer_acks, stat_kind::counter}};
}  // namespace

ack_model::ack_model(const sc_core::sc_object& nic, control_sender_if& sender, const flow_table& flows)
    : enable(&nic, enable_spec),
      every_frames(&nic, frames_spec),
      every_bytes(&nic, bytes_spec),
      timer(&nic, timer_spec),
      size(&nic, size_spec),
      priority(&nic, priority_spec()),
      sender_(sender),
      flows_(flows) {
  stat_registry::instance().add(&nic, "ack", ack_stats, 1, this);
  // With ACKs off (the default unless a scheme or profile needs them) the rest shapes nothing.
  for (param_base* p : std::initializer_list<param_base*>{&every_frames, &every_bytes, &timer, &size, &priority})
    p->inert_when(
        [](const void* m, const param_base&) -> std::string {
          const ack_model& a = *static_cast<const ack_model*>(m);
          return a.enable() ? "" : a.enable.name() + " is false (no scheme or profile here uses transport ACKs)";
        },
        this);
}

void ack_model::start(int classes) {
  class_ = priority() == "data" ? -1 : priority() == "high" ? classes - 1 : std::stoi(priority());
  if (enable() && class_ >= classes)
    throw config_error(priority.name() + ": class " + priority() + " is not one of this fabric's " +
                       std::to_string(classes) + " classes");
}

void ack_model::receive(const packet_header& h, uint64_t now) {
  const flow* f = h.flow_id < flows_.size() ? &flows_[h.flow_id] : nullptr;
  const uint64_t flow_size = f && f->spec.kind == flow_kind::finite ? f->spec.size : 0;
  const uint64_t unacked_before = coalescer_.unacked(h.flow_id);
  if (coalescer_.on_data(h.flow_id, h.seq, h.payload, flow_size, ack_rule{every_frames(), every_bytes().bytes})) {
    send(h, now);
    return;
  }
  const uint64_t t = to_ps(timer());
  if (t == 0) return;
  if (last_.size() <= h.flow_id) {
    last_.resize(h.flow_id + 1);
    oldest_unacked_.resize(h.flow_id + 1, 0);
  }
  last_[h.flow_id] = h;
  last_[h.flow_id].image = nullptr;
  if (unacked_before == 0) {  // the flow's oldest unacknowledged frame: its timer starts
    oldest_unacked_[h.flow_id] = now;
    timers_.push_back({now + t, h.flow_id});
    if (timers_.size() == 1) event_queue::instance().schedule(this, now + t);
  }
}

void ack_model::on_timer() {
  const uint64_t now = now_ps(), t = to_ps(timer());
  while (!timers_.empty() && timers_.front().due_ps <= now) {
    const pending p = timers_.pop_front();
    // Still waiting since that frame (no ACK went out in between, which would have restarted it)?
    if (coalescer_.unacked(p.flow) && oldest_unacked_[p.flow] + t == p.due_ps) {
      coalescer_.acked(p.flow);
      ++timer_acks_;
      send(last_[p.flow], now);
    }
  }
  if (!timers_.empty()) event_queue::instance().schedule(this, timers_.front().due_ps);
}

void ack_model::send(const packet_header& data, uint64_t now) {
  tlm::tlm_generic_payload* p = make_feedback_frame(frame_kind::ack, data, sender_.node_id(), now);
  packet_header& h = header(*p);
  h.size = static_cast<uint32_t>(size().bytes);
  if (class_ >= 0) h.priority = static_cast<uint8_t>(class_);
  h.seq = data.seq + data.payload;  // the acknowledged offset
  roce::headers w = roce::reply_to(data, h.src, roce::opcode_acknowledge);
  w.psn = static_cast<uint32_t>(h.seq & 0xFFFFFF);
  roce::encode(w, h.image->data());
  sender_.send_control(p);
}

}  // namespace sluice
