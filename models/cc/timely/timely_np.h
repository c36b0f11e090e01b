// TIMELY's notification point as a pure rule (Mittal et al., SIGCOMM'15; docs/models/timely.md):
// the receiver acknowledges each completed segment of `segment` payload bytes with one ACK, the
// data frame that completes it (its last payload byte crosses a multiple of `segment`, or it is
// the last frame of a finite flow) triggering the ACK. segment = 0: an ACK for every data frame.
// The ACK names the data frame by the flow's byte offset just past it (seq + payload), which
// the sender's reaction point matches against its own send records.
#pragma once
#include <cstdint>

namespace sluice {

// A data frame carrying payload bytes [seq, seq + payload) of a flow of `flow_size` bytes
// (0: endless) arrived: is it the last frame of a segment?
inline bool completes_segment(uint64_t seq, uint64_t payload, uint64_t segment, uint64_t flow_size) {
  const uint64_t end = seq + payload;
  if (segment == 0 || (flow_size && end >= flow_size)) return true;
  return end / segment > seq / segment;
}

}  // namespace sluice
