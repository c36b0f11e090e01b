// The periodic half of the always-on invariants (docs/testing.md, "Invariants"): checked per
// switch port and class at every sample boundary and at the end of the run, never per frame.
// The O(1) half sits in the models at the state changes it guards (models/core/invariant.h).
//
// - conservation: frames and bytes into each egress class queue = out + queued + dropped;
// - no lossless drop without a counted cause: a lossless class's drops = the MMU's headroom
//   overflows + frames without a route;
// - credits (InfiniBand): a sender's credit never negative (FCCL - FCTBS <= 2048 blocks) nor
//   above the buffer the receiver has (its VL's buffer + the shared pool); a receiver never
//   holds more than that;
// - pause timers: every pause interval ends at or after it began; a priority group the MMU
//   holds paused has its pause kept alive (refresh armed or an XOFF waiting);
// - no counter goes backwards (queue, drop, PFC and credit counters);
// - no period negative: paused and credit-starved times within the elapsed time, a starvation
//   that began no later than now.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "models/core/params.h"
#include "platforms/fabric.h"

namespace sluice {

class invariant_checker {
 public:
  param<sc_core::sc_time> interval;  // invariants.interval

  explicit invariant_checker(const fabric& f);
  // Stops the run (invariant_failed) at the first violation found at now_ps.
  void check(uint64_t now_ps);
  // A sample boundary: checks at the first one at or after each multiple of `interval` (every
  // one with 0). A check of a 17-port switch and its 16 NICs costs about 129 000 instructions.
  void on_sample(uint64_t now_ps);

 private:
  // Counters that may never fall, in a fixed order, with what they held at the last check.
  void monotone(uint64_t value, const char* where, int cls, const char* what);
  void check_switch_port(const switch_model& sw, const switch_port& p, uint64_t now_ps);
  void check_pfc(const pfc& fc, const mmu_if* buffer, int port, uint64_t now_ps);
  void check_credits(const credit_flow_control& fc, const credit_flow_control* peer, uint64_t now_ps);

  const fabric& fabric_;
  std::vector<uint64_t> last_;  // the monotone counters' values at the last check
  std::size_t next_ = 0;        // the next counter's slot in last_
  uint64_t next_check_ps_ = 0;  // the next sample at or after this time is checked
  bool started_ = false;
  // The credit port at the far end of each credit port, by the port's credit block.
  std::vector<std::pair<const credit_flow_control*, const credit_flow_control*>> credit_peers_;
  std::vector<const pfc*> nic_pfcs_;
};

}  // namespace sluice
