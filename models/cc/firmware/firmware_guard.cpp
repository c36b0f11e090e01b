#include "models/cc/firmware/firmware_guard.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>

#include "models/core/event_queue.h"

namespace sluice {
namespace {
constexpr int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
constexpr int watchdog_signal = SIGUSR2;

sigjmp_buf jump;
volatile sig_atomic_t in_call = 0;
std::atomic<uint64_t> calls{0};  // odd: inside a handler
std::atomic<uint64_t> limit_ms{0};
pthread_t sim_thread;

// One writer (the simulation's thread): a plain increment, no locked read-modify-write.
void bump() { calls.store(calls.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }

void on_signal(int sig) {
  if (in_call) {
    in_call = 0;
    siglongjmp(jump, sig);
  }
  if (sig == watchdog_signal) return;  // the handler returned meanwhile
  signal(sig, SIG_DFL);                // a crash outside firmware: the default action
  raise(sig);
}

void watchdog() {
  uint64_t seen = 0, stuck_ms = 0;
  for (;;) {
    const uint64_t limit = limit_ms.load();
    const uint64_t step = limit > 10 ? limit / 10 : 1;
    std::this_thread::sleep_for(std::chrono::milliseconds(limit ? step : 100));
    const uint64_t now = calls.load();
    if (limit && (now & 1) && now == seen) {
      stuck_ms += step;
      if (stuck_ms >= limit) {
        pthread_kill(sim_thread, watchdog_signal);
        stuck_ms = 0;
      }
    } else {
      stuck_ms = 0;
    }
    seen = now;
  }
}

bool armed = false;  // in this process: a forked child re-arms (its watchdog thread did not survive the fork)

void arm() {
  if (armed) return;
  armed = true;
  pthread_atfork(nullptr, nullptr, [] { armed = false; });
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_NODEFER;  // left by siglongjmp: the signal must not stay blocked
  sigemptyset(&sa.sa_mask);
  for (int s : crash_signals) sigaction(s, &sa, nullptr);
  sigaction(watchdog_signal, &sa, nullptr);
  sim_thread = pthread_self();
  std::thread(watchdog).detach();
}

const char* signal_name(int s) {
  switch (s) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    default:
      return "a signal";
  }
}
}  // namespace

std::string guard_outcome::describe() const {
  if (what == crashed) return std::string("crashed (") + signal_name(signal) + ")";
  if (what == timed_out) return "ran past the wall-clock watchdog (" + std::to_string(limit_ms.load()) + " ms)";
  return "returned";
}

guard_outcome guarded_call(int (*fn)(void*), void* arg, int& ret, uint64_t watchdog_ms) {
  // One guard per process (its jump buffer, its watchdog's thread), and firmware reaches
  // registries made for one thread (register names, probes): not on a windowed run's lanes.
  if (const event_queue* q = clock_detail::lane; q && q->lanes() > 1)
    SC_REPORT_ERROR("sluice/firmware",
                    "window threads: firmware runs on the simulation's one thread; run with "
                    "--window-threads 1 (window_threads=1)");
  arm();
  limit_ms.store(watchdog_ms, std::memory_order_relaxed);
  guard_outcome out;
  if (const int sig = sigsetjmp(jump, 0); sig != 0) {
    bump();
    out.what = sig == watchdog_signal ? guard_outcome::timed_out : guard_outcome::crashed;
    out.signal = sig;
    return out;
  }
  bump();
  in_call = 1;
  ret = fn(arg);
  in_call = 0;
  bump();
  return out;
}

}  // namespace sluice
