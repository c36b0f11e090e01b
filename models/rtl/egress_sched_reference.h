// The egress scheduler as the RTL block computes it (rtl/sluice_egress_sched.sv), in C++: the
// same widths, the same rounds, the same answer and the same number of clock cycles. It is the
// lockstep checker's reference and the random-vector tests' oracle; with weights of at least 1 it
// answers exactly as the C++ `strict-dwrr` policy (egress_scheduler), which the tests check too.
#pragma once
#include <array>
#include <cstdint>

#include "models/core/packet.h"

namespace sluice {

// The block's port widths (bits).
namespace sched_widths {
constexpr int head = 16, weight = 20, quantum = 25, grant = 45, deficit = 48;
constexpr uint64_t mask(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }
}  // namespace sched_widths

// What the block is configured with (held between requests).
struct sched_block_config {
  uint32_t strict_mask = 0;
  std::array<uint32_t, max_classes> weight{};  // 20 bits
  uint32_t quantum = 1500;                     // 25 bits
};

// One request's inputs and its answer.
struct sched_request {
  std::array<uint32_t, max_classes> head{};  // 16 bits each, 0: empty
  uint32_t eligible = 0;
};
struct sched_answer {
  int queue = -1;       // -1: declined
  uint32_t cycles = 0;  // clock edges from start to valid
  bool operator==(const sched_answer& o) const { return queue == o.queue && cycles == o.cycles; }
  bool operator!=(const sched_answer& o) const { return !(*this == o); }
};

class egress_sched_reference {
 public:
  explicit egress_sched_reference(int queues = max_classes) : queues_(queues) {}
  void configure(const sched_block_config& c) { config_ = c; }
  sched_answer decide(const sched_request& r);
  // The state the block keeps between requests (for a mismatch report).
  uint64_t deficit(int q) const { return deficit_[q]; }
  int current() const { return current_; }
  bool fresh() const { return fresh_; }

 private:
  int queues_;
  sched_block_config config_;
  std::array<uint64_t, max_classes> deficit_{};
  int current_ = 0;
  bool fresh_ = true;
};

}  // namespace sluice
