#include "models/switch/shared_buffer.h"

#include <algorithm>
#include <stdexcept>

namespace sluice {

shared_buffer::shared_buffer(int ports, int priorities, buffer_config config, std::vector<pg_config> pgs)
    : priorities_(priorities),
      config_(config),
      pgs_(std::move(pgs)),
      usage_(static_cast<std::size_t>(ports) * priorities),
      paused_(usage_.size(), 0) {
  if (pgs_.size() != usage_.size()) throw std::invalid_argument("shared_buffer: one pg_config per (port, priority)");
  if (config_.cell == 0) throw std::invalid_argument("shared_buffer: cell size must be positive");
}

uint64_t shared_buffer::threshold(int port, int priority) const {
  if (!config_.dynamic) return pgs_[at(port, priority)].xoff;
  uint64_t free = config_.shared_size > shared_used_ ? config_.shared_size - shared_used_ : 0;
  return static_cast<uint64_t>(pgs_[at(port, priority)].alpha * static_cast<double>(free));
}

bool shared_buffer::xoff_condition(std::size_t i, const pg_usage& u, uint64_t threshold) const {
  return u.headroom > 0 || (u.shared > 0 && u.shared >= threshold);
}

admit_verdict shared_buffer::admit(int port, int priority, uint64_t frame_bytes, bool& xoff_due) {
  xoff_due = false;
  const uint64_t bytes = occupancy(frame_bytes);
  std::size_t i = at(port, priority);
  const pg_config& c = pgs_[i];
  pg_usage& u = usage_[i];
  if (u.reserved + bytes <= c.reserve) {
    u.reserved += bytes;
  } else if (u.headroom == 0 && u.shared + bytes <= threshold(port, priority) &&
             shared_used_ + bytes <= config_.shared_size) {
    u.shared += bytes;
    shared_used_ += bytes;
  } else if (c.lossless && u.headroom + bytes <= c.headroom) {
    u.headroom += bytes;
  } else {
    // Even a group whose headroom cannot take one frame must still pause its sender.
    if (c.lossless && !paused_[i]) {
      paused_[i] = 1;
      xoff_due = true;
    }
    return admit_verdict::dropped;
  }
  u.peak_total = std::max(u.peak_total, u.total());
  u.peak_headroom = std::max(u.peak_headroom, u.headroom);
  if (c.lossless && !paused_[i] && xoff_condition(i, u, threshold(port, priority))) {
    paused_[i] = 1;
    xoff_due = true;
  }
  return admit_verdict::admitted;
}

void shared_buffer::release(int port, int priority, uint64_t frame_bytes, bool& xon_due) {
  xon_due = false;
  uint64_t bytes = occupancy(frame_bytes);
  std::size_t i = at(port, priority);
  pg_usage& u = usage_[i];
  uint64_t from_headroom = std::min(u.headroom, bytes);
  u.headroom -= from_headroom;
  bytes -= from_headroom;
  uint64_t from_shared = std::min(u.shared, bytes);
  u.shared -= from_shared;
  shared_used_ -= from_shared;
  bytes -= from_shared;
  u.reserved -= std::min(u.reserved, bytes);
  xon_due = try_resume(port, priority);
}

bool shared_buffer::try_resume(int port, int priority) {
  std::size_t i = at(port, priority);
  const pg_usage& u = usage_[i];
  if (!paused_[i] || u.headroom != 0) return false;
  if (u.shared + pgs_[i].xon_offset > threshold(port, priority) && u.shared != 0) return false;
  paused_[i] = 0;
  return true;
}

}  // namespace sluice
