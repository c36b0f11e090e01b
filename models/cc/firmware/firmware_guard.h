// Runs firmware handlers so that a faulty one stops the run with one line instead of taking the
// simulator down or hanging it: a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL) inside a handler, or a
// handler still running after the wall-clock watchdog, returns to the caller as an outcome. Cost
// per call: a sigsetjmp without the signal mask and two stores; the watchdog is a thread that
// samples the call counter every tenth of its limit.
#pragma once
#include <cstdint>
#include <string>

namespace sluice {

struct guard_outcome {
  enum kind { ok, crashed, timed_out } what = ok;
  int signal = 0;
  std::string describe() const;  // "crashed (SIGSEGV)", "ran past the 1 s wall-clock watchdog"
};

// Calls fn(arg), returning its value in `ret`. Arms the handlers and the watchdog on first use
// (per process: a forked child starts its own watchdog). watchdog_ms = 0: no watchdog.
guard_outcome guarded_call(int (*fn)(void*), void* arg, int& ret, uint64_t watchdog_ms);

}  // namespace sluice
