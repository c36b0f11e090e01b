// When a receiver acknowledges (the NIC's transport ACK model, ack_model.h): a pure rule, per
// flow. A data frame carrying payload bytes [seq, seq + payload) of a flow of `flow_size` bytes
// (0: endless) is acknowledged at once if it
//   - is the every_frames-th frame since the flow's last ACK (every_frames > 0), or
//   - crosses a multiple of every_bytes of the flow's byte offset (every_bytes > 0: one ACK per
//     completed segment, TIMELY's rule), or
//   - is the last frame of a finite flow.
// Otherwise it waits; with a coalescing timer, the caller acknowledges it when the timer runs
// out (the oldest unacknowledged frame's arrival + timer).
#pragma once
#include <cstdint>
#include <vector>

namespace sluice {

struct ack_rule {
  uint64_t every_frames = 1;  // 0: not by count
  uint64_t every_bytes = 0;   // 0: not by bytes
};

class ack_coalescer {
 public:
  // A data frame of `flow` arrived; true: acknowledge now (the flow's count restarts).
  bool on_data(uint32_t flow, uint64_t seq, uint64_t payload, uint64_t flow_size, const ack_rule& r) {
    if (flow >= unacked_.size()) unacked_.resize(flow + 1, 0);
    ++unacked_[flow];
    const uint64_t end = seq + payload;
    const bool due = (r.every_frames && unacked_[flow] >= r.every_frames) ||
                     (r.every_bytes && end / r.every_bytes > seq / r.every_bytes) || (flow_size && end >= flow_size);
    if (due) unacked_[flow] = 0;
    return due;
  }
  // Frames of `flow` received since its last ACK.
  uint64_t unacked(uint32_t flow) const { return flow < unacked_.size() ? unacked_[flow] : 0; }
  void acked(uint32_t flow) {
    if (flow < unacked_.size()) unacked_[flow] = 0;
  }

 private:
  std::vector<uint64_t> unacked_;  // by flow id
};

}  // namespace sluice
