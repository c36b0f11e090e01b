#include "models/core/lane_worker.h"

namespace sluice {
namespace {
// Spins before sleeping: about 50 us of polling, the length of a busy window or two.
constexpr int spins_before_sleep = 20000;
inline void relax() { __builtin_ia32_pause(); }
}  // namespace

lane_worker::lane_worker(std::function<void()> setup, std::function<void()> body)
    : setup_(std::move(setup)), body_(std::move(body)), thread_([this] { loop(); }) {}

lane_worker::~lane_worker() {
  quit_.store(true);
  go();
  thread_.join();
}

void lane_worker::go() {
  posted_.fetch_add(1);  // sequentially consistent with the sleeper's flag: one of the two sees the other
  if (sleeping_.load()) {
    std::lock_guard<std::mutex> hold(m_);
    cv_.notify_one();
  }
}

void lane_worker::wait() {
  const uint64_t want = posted_.load(std::memory_order_relaxed);
  for (int n = 0; done_.load(std::memory_order_acquire) != want; ++n)
    if (n < spins_before_sleep)
      relax();
    else
      std::this_thread::yield();
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void lane_worker::loop() {
  setup_();
  for (uint64_t seen = 0;;) {
    for (int n = 0; posted_.load(std::memory_order_acquire) == seen; ++n) {
      if (n < spins_before_sleep) {
        relax();
        continue;
      }
      std::unique_lock<std::mutex> hold(m_);
      sleeping_.store(true);
      cv_.wait(hold, [&] { return posted_.load() != seen; });
      sleeping_.store(false);
    }
    ++seen;
    if (quit_.load()) return;
    try {
      body_();
    } catch (...) {
      error_ = std::current_exception();
    }
    done_.store(seen, std::memory_order_release);
  }
}

}  // namespace sluice
