#include "models/switch/shared_buffer.h"

#include <algorithm>
#include <stdexcept>

#include "models/switch/switch_policies.h"

namespace sluice {
namespace {
struct static_policy final : threshold_policy {
  uint64_t limit(const pg_config& c, const pg_usage&, uint64_t) const override { return c.xoff; }
  bool follows_pool() const override { return false; }
};
struct dynamic_policy final : threshold_policy {
  uint64_t limit(const pg_config& c, const pg_usage&, uint64_t free_pool) const override {
    return static_cast<uint64_t>(c.alpha * static_cast<double>(free_pool));
  }
  bool follows_pool() const override { return true; }
};
const policy_registrar<threshold_policies> static_reg{"static",
                                                      "a byte limit on the group's shared use (<port>.pfc.xoff)",
                                                      [] { return std::make_unique<static_policy>(); },
                                                      {"pfc.xoff"}};
const policy_registrar<threshold_policies> dynamic_reg{
    "dynamic",
    "alpha x free shared pool (<sw>.mmu.alpha, alpha_lossy; Choudhury-Hahne)",
    [] { return std::make_unique<dynamic_policy>(); },
    {"alpha", "alpha_lossy"}};
}  // namespace

const threshold_policy& static_threshold() {
  static const static_policy p;
  return p;
}
const threshold_policy& dynamic_threshold() {
  static const dynamic_policy p;
  return p;
}

shared_buffer::shared_buffer(int ports, int priorities, buffer_config config, std::vector<pg_config> pgs)
    : priorities_(priorities),
      policy_(config.threshold ? config.threshold
              : config.dynamic ? &dynamic_threshold()
                               : &static_threshold()),
      config_(config),
      groups_(static_cast<std::size_t>(ports) * priorities) {
  if (pgs.size() != groups_.size()) throw std::invalid_argument("shared_buffer: one pg_config per (port, priority)");
  for (std::size_t i = 0; i < pgs.size(); ++i) groups_[i].config = pgs[i];
  if (config_.cell == 0) throw std::invalid_argument("shared_buffer: cell size must be positive");
}

uint64_t shared_buffer::threshold(int port, int priority) const {
  const group& g = groups_[at(port, priority)];
  uint64_t free = config_.shared_size > shared_used_ ? config_.shared_size - shared_used_ : 0;
  return policy_->limit(g.config, g.usage, free);
}

bool shared_buffer::xoff_condition(std::size_t i, const pg_usage& u, uint64_t threshold) const {
  return u.headroom > 0 || (u.shared > 0 && u.shared >= threshold);
}

admit_verdict shared_buffer::admit(int port, int priority, uint64_t frame_bytes, bool& xoff_due) {
  xoff_due = false;
  const uint64_t bytes = occupancy(frame_bytes);
  std::size_t i = at(port, priority);
  group& g = groups_[i];
  const pg_config& c = g.config;
  pg_usage& u = g.usage;
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
    if (c.lossless && !g.paused) {
      pause_index(i);
      xoff_due = true;
    }
    if (c.lossless) ++u.overflows;
    return admit_verdict::dropped;
  }
  u.peak_total = std::max(u.peak_total, u.total());
  u.peak_headroom = std::max(u.peak_headroom, u.headroom);
  in_use_ += bytes;
  peak_in_use_ = std::max(peak_in_use_, in_use_);
  peak_shared_ = std::max(peak_shared_, shared_used_);
  if (c.lossless && !g.paused && xoff_condition(i, u, threshold(port, priority))) {
    pause_index(i);
    xoff_due = true;
  }
  return admit_verdict::admitted;
}

void shared_buffer::pause_index(std::size_t i) {
  groups_[i].paused = true;
  paused_list_.push_back(static_cast<uint32_t>(i));
}

void shared_buffer::release(int port, int priority, uint64_t frame_bytes) {
  uint64_t bytes = occupancy(frame_bytes);
  std::size_t i = at(port, priority);
  pg_usage& u = groups_[i].usage;
  uint64_t from_headroom = std::min(u.headroom, bytes);
  u.headroom -= from_headroom;
  bytes -= from_headroom;
  uint64_t from_shared = std::min(u.shared, bytes);
  u.shared -= from_shared;
  shared_used_ -= from_shared;
  bytes -= from_shared;
  const uint64_t from_reserve = std::min(u.reserved, bytes);
  u.reserved -= from_reserve;
  in_use_ -= from_headroom + from_shared + from_reserve;
  if (paused_list_.empty()) return;
  resumed_.clear();
  if (from_shared > 0 && policy_->follows_pool()) {
    // The pool grew: every paused group's threshold rose with it.
    for (std::size_t k = 0; k < paused_list_.size();) {
      uint32_t g = paused_list_[k];
      if (groups_[g].usage.headroom != 0) {  // cannot resume yet (resume_index's first test, without the call)
        ++k;
        continue;
      }
      if (resume_index(g)) {
        resumed_.push_back(g);  // resume_index removed it from position k
      } else {
        ++k;
      }
    }
  } else if (resume_index(i)) {
    resumed_.push_back(static_cast<uint32_t>(i));
  }
  if (!listener_) return;
  // Report after the scan: a listener may send XON, start a frame and re-enter release().
  std::vector<uint32_t> done;
  done.swap(resumed_);
  for (uint32_t g : done) listener_->resumed(static_cast<int>(g / priorities_), static_cast<int>(g % priorities_));
  if (resumed_.empty()) resumed_.swap(done);  // keep the scratch capacity
}

bool shared_buffer::try_resume(int port, int priority) { return resume_index(at(port, priority)); }

bool shared_buffer::resume_index(std::size_t i) {
  group& g = groups_[i];
  const pg_usage& u = g.usage;
  if (!g.paused || u.headroom != 0) return false;
  const int port = static_cast<int>(i / priorities_), priority = static_cast<int>(i % priorities_);
  if (u.shared + g.config.xon_offset > threshold(port, priority) && u.shared != 0) return false;
  g.paused = false;
  auto it = std::find(paused_list_.begin(), paused_list_.end(), static_cast<uint32_t>(i));
  *it = paused_list_.back();
  paused_list_.pop_back();
  return true;
}

}  // namespace sluice
