// Egress scheduling over the class queues of a port (no SystemC inside: unit-testable).
// Strict-priority queues are served first, highest priority first; the remaining queues share
// what is left by deficit weighted round robin (quantum = weight x base quantum bytes).
#pragma once
#include <array>
#include <cstdint>

#include "models/core/packet.h"
#include "models/switch/scheduler_if.h"

namespace sluice {

struct scheduler_config {
  std::array<bool, max_classes> strict{};      // false: member of the DWRR group
  std::array<uint32_t, max_classes> weight{};  // DWRR weights (>= 1)
  uint32_t quantum = 1500;                     // bytes per unit of weight per round
  uint32_t high_limit = 0;                     // ib-vlarb: VLHighLimit, 4 KiB units (255: unlimited)
};

// Not aligned to a line: an aligned block costs 128 bytes more per port (512 for its 384), which took
// the k = 34 fat tree past 1 GB; its masks and a class's deficit and grant are close together anyway.
class egress_scheduler : public scheduler_if {
 public:
  explicit egress_scheduler(const scheduler_config& config);

  // head_bytes[q] is the size of queue q's head frame, 0 if q is empty; eligible has bit q set if
  // q may send now (non-empty, not paused, head past the pipeline). Returns the queue to serve, or -1.
  // Serving is committed: the DWRR deficit is charged for the frame.
  // Inline, so that a port whose scheduler is exactly this one (egress_port::set_scheduler) calls
  // it without a virtual call and saved registers, once per frame.
  int select(const std::array<uint32_t, max_classes>& head_bytes, uint32_t eligible) override {
    if (uint32_t strict = eligible & strict_mask_) return 31 - __builtin_clz(strict);  // highest first
    const uint32_t dwrr = eligible & dwrr_mask_;
    // One DWRR queue eligible and none idle with a deficit to forfeit (a port with one busy
    // class, as most are): no visits, and no registers saved for them.
    if (dwrr && !(dwrr & (dwrr - 1)) && !(dwrr_mask_ & credited_ & ~eligible))
      return select_alone(__builtin_ctz(dwrr), head_bytes[__builtin_ctz(dwrr)]);
    return select_visiting(head_bytes, eligible);
  }
  // select(head_bytes, 1u << q) for an eligible q alone whose head is `head` bytes (egress_port's
  // one busy class): the masks' tests for several eligible queues left out, and no head sizes
  // of the other queues read. False, charging nothing, when an idle queue has a deficit to
  // forfeit: then select decides (it needs every queue's head).
  bool select_one(int q, uint32_t head) {
    const uint32_t bit = 1u << q;
    if (strict_mask_ & bit) return true;  // served without a deficit
    if (dwrr_mask_ & credited_ & ~bit) return false;
    select_alone(q, head);
    return true;
  }
  // New weights or quantum: each queue's grant per round from now on (deficits are kept).
  void reconfigure(const scheduler_config& config) override;

 private:
  static int next_in(uint32_t mask, int after);  // next set bit after `after`, wrapping
  // q the only eligible DWRR queue: what the visits do, without them (they move to q, then grant
  // q a quantum per fresh visit until its head fits).
  int select_alone(int q, uint32_t head) {
    const uint32_t bit = 1u << q;
    uint64_t deficit = dwrr_[q].deficit;
    bool granted = current_ != q || fresh_;  // moving to q, or q's fresh visit: a quantum
    if (granted) {
      current_ = q;
      fresh_ = false;
      deficit += dwrr_[q].grant;
    }
    for (; head > deficit; granted = true) deficit += dwrr_[q].grant;
    if (granted) credited_ |= bit;
    deficit -= head;
    dwrr_[q].deficit = deficit;
    if (deficit == 0) credited_ &= ~bit;
    return q;
  }
  [[gnu::noinline]] int select_visiting(const std::array<uint32_t, max_classes>& head_bytes, uint32_t eligible);
  // What select() reads, first (it runs once per frame; the configuration it needs is folded
  // into the masks and the per-class grant).
  uint32_t strict_mask_ = 0, dwrr_mask_ = 0;
  uint32_t credited_ = 0;  // queues whose deficit is not 0
  int current_ = 0;
  bool fresh_ = true;  // the current queue has not yet received its quantum this round
  // A class's deficit beside its grant (weight x quantum: a fresh queue's addition per round),
  // both read by a frame's choice: one line, not one in each of two arrays.
  struct dwrr_state {
    uint64_t deficit = 0, grant = 0;
  };
  std::array<dwrr_state, max_classes> dwrr_{};
  scheduler_config config_;
};

}  // namespace sluice
