// The periodic half of the always-on invariants (docs/testing.md, "Invariants"): checked per
// switch port and class, per NIC port and class and over the statistics registry at every
// sample boundary and at the end of the run, never per frame. The O(1) half sits in the models
// at the state changes it guards (models/core/invariant.h).
//
// - conservation: frames and bytes into each egress class queue = out + queued + dropped; a NIC's
//   control frames (CNP, ACK, ...) made on a class = taken for the wire + queued, frames and
//   bytes; the frames its MAC sent = data + control + flow-control frames; the data frames that
//   arrived = delivered + held for resequencing + misdelivered;
// - no lossless drop without a counted cause: a lossless class's drops = the MMU's headroom
//   overflows + frames without a route;
// - credits (InfiniBand): a sender's credit never negative (FCCL - FCTBS <= 2048 blocks) nor
//   above the buffer the receiver has (its VL's buffer + the shared pool); a receiver never
//   holds more than that;
// - pause timers: every pause interval ends at or after it began; a priority group the MMU
//   holds paused has its pause kept alive (refresh armed or an XOFF waiting);
// - no counter goes backwards: every statistic registered as a counter (stat_kind::counter,
//   every stat_counter), read through the registry;
// - no period negative: paused and credit-starved times within the elapsed time, a starvation
//   that began no later than now.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "models/core/params.h"
#include "models/core/stats.h"
#include "platforms/fabric.h"

namespace sluice {

class invariant_checker {
 public:
  param<sc_core::sc_time> interval;  // invariants.interval

  explicit invariant_checker(const fabric& f);
  // Stops the run (invariant_failed) at the first violation found at now_ps. `last`: the end of
  // the run, after which nothing is checked again.
  void check(uint64_t now_ps, bool last = false);
  // A sample boundary: checks at the first one at or after each multiple of `interval` (every
  // one with 0). The cost of a check is in docs/testing.md ("Invariants, always on").
  void on_sample(uint64_t now_ps);
  // The run ends at end_ps with a check of its own: a sample boundary there is not checked twice.
  void run_ends_at(uint64_t end_ps) { end_ps_ = end_ps; }

 private:
  friend struct invariant_test_hooks;
  // Every registered counter against what it held at the last check (counters registered since
  // are added, starting from 0). `keep`: store the values for the next check.
  void check_counters(bool keep);
  [[noreturn, gnu::cold]] static void counter_went_backwards(const stat_registry::counter_ref& c, double before,
                                                             double now);
  void check_switch_port(const switch_model& sw, const switch_port& p, uint64_t now_ps);
  void check_pfc(const pfc& fc, const mmu_if* buffer, int port, uint64_t now_ps);
  void check_credits(const credit_flow_control& fc, const credit_flow_control* peer, uint64_t now_ps);
  void check_nic(const nic& n, uint64_t delivered);

  const fabric& fabric_;
  std::vector<double> last_;          // each counter's value at the last check
  std::size_t registrations_ = 0;     // the registry's registrations at the last check
  std::vector<uint64_t> delivered_;   // data frames delivered at each NIC (by fabric.nics position)
  std::vector<int32_t> nic_of_node_;  // node id -> position in fabric.nics (-1: a switch)
  uint64_t next_check_ps_ = 0;        // the next sample at or after this time is checked
  uint64_t end_ps_ = UINT64_MAX;      // the end-of-run check's time
  bool started_ = false;
  // The credit port at the far end of each credit port, by the port's credit block.
  std::vector<std::pair<const credit_flow_control*, const credit_flow_control*>> credit_peers_;
  std::vector<const pfc*> nic_pfcs_;
};

}  // namespace sluice
