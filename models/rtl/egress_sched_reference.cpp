#include "models/rtl/egress_sched_reference.h"

namespace sluice {

sched_answer egress_sched_reference::decide(const sched_request& r) {
  using namespace sched_widths;
  const uint32_t all = queues_ >= 32 ? ~0u : (1u << queues_) - 1;
  const uint32_t eligible = r.eligible & all, strict_mask = config_.strict_mask & all;
  auto head = [&](int q) { return r.head[q] & mask(sched_widths::head); };
  if (uint32_t strict = eligible & strict_mask) return {31 - __builtin_clz(strict), 1};

  for (int q = 0; q < queues_; ++q)  // an emptied DWRR queue forfeits its deficit
    if (!(strict_mask >> q & 1) && !(eligible >> q & 1) && head(q) == 0) deficit_[q] = 0;
  const uint32_t dwrr = eligible & ~strict_mask;
  if (!dwrr) return {-1, 1};

  std::array<uint64_t, max_classes> grant{};
  bool any_grant = false;
  for (int q = 0; q < queues_; ++q) {
    grant[q] =
        (uint64_t{config_.weight[q]} & mask(weight)) * (config_.quantum & mask(quantum)) & mask(sched_widths::grant);
    any_grant |= (dwrr >> q & 1) && grant[q] != 0;
  }
  // The first round starts at the current queue if eligible, else at the next eligible after it.
  int q0 = current_;
  bool q0_fresh = fresh_;
  if (!(dwrr >> current_ & 1)) {
    for (int k = 1; k < queues_; ++k)
      if (dwrr >> ((current_ + k) % queues_) & 1) {
        q0 = (current_ + k) % queues_;
        break;
      }
    q0_fresh = true;
  }
  for (uint32_t cycles = 1;; ++cycles) {
    std::array<uint64_t, max_classes> sum{};
    int winner_pos = -1;
    for (int k = 0; k < queues_; ++k) {
      const int q = (q0 + k) % queues_;
      if (!(dwrr >> q & 1)) continue;
      sum[q] = (deficit_[q] + ((q != q0 || q0_fresh) ? grant[q] : 0)) & mask(sched_widths::deficit);
      if (winner_pos < 0 && sum[q] >= head(q)) winner_pos = k;
    }
    if (winner_pos >= 0) {
      for (int k = 0; k < winner_pos; ++k) {
        const int q = (q0 + k) % queues_;
        if (dwrr >> q & 1) deficit_[q] = sum[q];
      }
      const int w = (q0 + winner_pos) % queues_;
      deficit_[w] = (sum[w] - head(w)) & mask(sched_widths::deficit);
      current_ = w;
      fresh_ = false;
      return {w, cycles};
    }
    current_ = q0;
    fresh_ = true;
    if (!any_grant) return {-1, cycles};  // no round can ever serve an eligible queue
    for (int q = 0; q < queues_; ++q)
      if (dwrr >> q & 1) deficit_[q] = sum[q];
    q0_fresh = true;
  }
}

}  // namespace sluice
