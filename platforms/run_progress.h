// A long run's progress and its Ctrl-C, shared by `sluice run` and Python's Simulation.run.
//
// A tick every 1/200 of the run (a timed_callbacks entry: foreign activity, it does not change
// the models' results): after SIGINT it stops the run cleanly (the outputs then hold what was
// measured up to there); when shown, it prints simulated time, wall time and the ETA on stderr,
// once the run has taken a second and then each second.
#pragma once
#include <chrono>
#include <csignal>
#include <cstdint>

#include "platforms/timed_callbacks.h"

namespace sluice {

class run_progress {
 public:
  // Catches SIGINT (until destroyed; unblocked meanwhile, blocked again after if it was) and adds the tick to `calls`,
  // whose run ends at end_ps.
  run_progress(timed_callbacks& calls, uint64_t end_ps, bool show);
  ~run_progress();
  run_progress(const run_progress&) = delete;
  run_progress& operator=(const run_progress&) = delete;

  bool interrupted() const { return interrupted_; }
  // After the run: ends the progress line if one was shown.
  void done();

 private:
  void tick();
  uint64_t end_ps_;
  bool show_, interrupted_ = false, shown_ = false;
  std::chrono::steady_clock::time_point start_, last_;
  struct sigaction previous_ {};
  sigset_t previous_mask_{};  // SIGINT's blocking before the run, restored after it
};

}  // namespace sluice
