#include "models/nic/rx_dispatcher.h"

#include <algorithm>

#include "models/core/probe.h"

namespace sluice {

void rx_dispatcher::set_reaction_point(uint32_t flow_id, reaction_point_if* rp) { flows_.at(flow_id).rp = rp; }

inline void rx_dispatcher::count_delivery(flow& f, uint32_t payload, uint64_t now) {
  if (f.stats.rx_frames == 0) f.stats.first_rx_ps = now;
  ++f.stats.rx_frames;
  f.stats.rx_bytes += payload;
  f.stats.last_rx_ps = now;
}

inline void rx_dispatcher::deliver(flow& f, uint32_t payload, uint64_t now) {
  count_delivery(f, payload, now);
  if (f.spec.kind == flow_kind::finite && f.stats.rx_bytes >= f.spec.size && !f.stats.completed()) {
    f.stats.completed_ps = std::max<uint64_t>(now, 1);
    last_completed_ = f.id;
    if (completion_hook_) completion_hook_(f.id);
    completed_.raise();
  }
}

// A data frame is delivered to the application in its flow's byte order: a frame whose seq is
// past the bytes delivered so far waits (counted, with its wait) until the gap fills. The
// notification point and the transport ACKs see frames as they arrive.
inline void rx_dispatcher::receive_data(packet_header& h) {
  ++rx_frames_;
  if (!for_a_flow_here(h)) {
    ++misdelivered_;
    ++data_misdelivered_;
    return;
  }
  flow& f = flows_[h.flow_id];
  const uint64_t now = now_ps();
  if (!resequencing_) {  // in arrival order (out_of_order_ counts only while resequencing)
    deliver(f, h.payload, now);
    if (holding_) release_held(f, now);  // frames held before resequencing was turned off
  } else if (h.seq <= f.stats.rx_bytes) {
    out_of_order_ += h.seq < f.stats.rx_bytes;  // behind bytes delivered: never expected
    deliver(f, h.payload, now);
    if (holding_) release_held(f, now);
  } else {
    hold(f, h, now);
  }
  if (acks_) acks_->on_data(h, now);
  if (np_) np_->on_data(h, now);
}

// Out of line: the data path, most frames, then saves no registers for it.
void rx_dispatcher::receive_feedback(const packet_header& h, uint8_t k) {
  if (h.dst == node_id_ && h.flow_id < flows_.size() && flows_[h.flow_id].spec.src == node_id_)
    ++flows_[h.flow_id].stats.feedback_rx[k];  // k < max_frame_kinds: a registered feedback kind
  if (h.dst == node_id_ && h.flow_id < flows_.size() && flows_[h.flow_id].rp) {
    if (probes::feedback_received.on()) probes::feedback_received.emit(this, now_ps(), &h.fields(), 0, h.priority, 1);
    flows_[h.flow_id].rp->on_feedback(h, now_ps());
  } else {
    if (h.kind != frame_kind::ack || h.dst != node_id_)  // a transport ACK needs no reaction point
      ++unmatched_feedback_;  // no reaction point for this flow here: counted, not lost silently
    if (probes::feedback_received.on()) probes::feedback_received.emit(this, now_ps(), &h.fields(), 0, h.priority, 0);
  }
}

void rx_dispatcher::receive_frame(tlm::tlm_generic_payload* p, int) {
  // A data frame for a flow of this NIC that does not complete it, with nothing else to hear it
  // (no notification point, resequencing or ACKs switched on) and the clock read inside a drain: most
  // frames. Counted as receive_any would, with no call but the payload's release, a tail call,
  // so that no registers are saved (five were, pushed and popped at every frame).
  packet_header& h = header(*p);
  const auto k = static_cast<uint8_t>(h.kind);
  if (plain_ && k < max_frame_kinds && kinds_.role(h.kind) == frame_role::data && clock_detail::draining() &&
      !acking() && for_a_flow_here(h)) {
    flow& f = flows_[h.flow_id];
    if (f.spec.kind != flow_kind::finite || f.stats.rx_bytes + h.payload < f.spec.size || f.stats.completed()) {
      ++by_kind_[k];
      ++rx_frames_;
      count_delivery(f, h.payload, clock_detail::now);
      return p->release();
    }
  }
  receive_any(p);
}

void rx_dispatcher::receive_any(tlm::tlm_generic_payload* p) {
  packet_header& h = header(*p);
  const auto k = static_cast<uint8_t>(h.kind);
  if (k < max_frame_kinds) ++by_kind_[k];
  switch (kinds_.role(h.kind)) {  // what to do with a kind is in its registration
    case frame_role::data:
      receive_data(h);
      break;
    case frame_role::feedback:
      receive_feedback(h, k);
      break;
    default:
      ++misdelivered_;
      break;
  }
  p->release();
}

void rx_dispatcher::hold(flow& f, const packet_header& h, uint64_t now) {
  std::vector<held>& q = held_[f.id];
  auto at = std::lower_bound(q.begin(), q.end(), h.seq, [](const held& x, uint64_t s) { return x.seq < s; });
  q.insert(at, held{h.seq, now, h.payload});
  ++holding_;
  plain_ = false;
  ++resequenced_;
}

// The frames of f that the delivery just made in order, oldest bytes first.
void rx_dispatcher::release_held(flow& f, uint64_t now) {
  auto it = held_.find(f.id);
  if (it == held_.end()) return;
  std::vector<held>& q = it->second;
  std::size_t n = 0;
  while (n < q.size() && q[n].seq <= f.stats.rx_bytes) {
    const uint64_t waited = now - q[n].arrived_ps;
    reseq_delay_ps_ += waited;
    reseq_delay_max_ps_ = std::max(reseq_delay_max_ps_, waited);
    out_of_order_ += q[n].seq < f.stats.rx_bytes;
    deliver(f, q[n].payload, now);
    ++n;
  }
  q.erase(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(n));  // keeps the capacity for the next gap
  holding_ -= n;
  update_plain();
}

}  // namespace sluice
