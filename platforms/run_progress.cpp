#include "platforms/run_progress.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdio>

#include "models/core/event_queue.h"
#include "models/core/units.h"

namespace sluice {
namespace {
std::atomic<bool> interrupt_requested{false};
extern "C" void on_sigint(int) { interrupt_requested = true; }
}  // namespace

run_progress::run_progress(timed_callbacks& calls, uint64_t end_ps, bool show)
    : end_ps_(end_ps), show_(show), start_(std::chrono::steady_clock::now()), last_(start_) {
  // The kernel announces sc_stop() on stdout as an info; an interrupted run says so itself.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  interrupt_requested = false;
  struct sigaction action {};
  action.sa_handler = on_sigint;
  sigaction(SIGINT, &action, &previous_);
  // Only now let SIGINT through: a caller may hold it blocked until the run's handler is in place
  // (Python's child does, so that a Ctrl-C before the run is not lost and one after it cannot
  // interrupt the child's own code); one already pending arrives here and stops the run at its
  // first tick.
  sigset_t sigint;
  sigemptyset(&sigint);
  sigaddset(&sigint, SIGINT);
  pthread_sigmask(SIG_UNBLOCK, &sigint, &previous_mask_);
  const uint64_t period = std::max<uint64_t>(end_ps / 200, 1);
  calls.add(period, period, [this] { tick(); });
}

run_progress::~run_progress() {
  pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
  sigaction(SIGINT, &previous_, nullptr);
}

void run_progress::tick() {
  if (interrupt_requested && !interrupted_) {
    interrupted_ = true;
    event_queue::instance().request_stop();
  }
  if (!show_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < std::chrono::seconds(1)) return;
  last_ = now;
  const double wall = std::chrono::duration<double>(now - start_).count();
  const double done = static_cast<double>(now_ps()) / static_cast<double>(end_ps_);
  std::fprintf(stderr, "\rsluice: %s of %s simulated, %.1f s wall, ETA %.0f s   ",
               format_time(from_ps(now_ps())).c_str(), format_time(from_ps(end_ps_)).c_str(), wall,
               done > 0 ? wall * (1 - done) / done : 0.0);
  shown_ = true;
}

void run_progress::done() {
  if (shown_) std::fprintf(stderr, "\n");
  shown_ = false;
}

}  // namespace sluice
