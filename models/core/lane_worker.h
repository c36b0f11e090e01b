// A thread that runs one job at a time for the thread that owns it: a lane of a windowed run on
// several threads (event_queue::run_in_windows), which drains its partitions of each window
// while the kernel's thread drains its own.
//
// Why not a new thread per window: a window is a few microseconds of work on a large fabric.
// The worker spins a while for the next job (the owner posts one every window), then sleeps, so
// a run paused for other kernel activity (a sampler, a Python callback) costs no core.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace sluice {

class lane_worker {
 public:
  // setup runs first on the new thread (its thread-local state), then body once per go().
  lane_worker(std::function<void()> setup, std::function<void()> body);
  ~lane_worker();  // ends the thread after its current job
  lane_worker(const lane_worker&) = delete;
  lane_worker& operator=(const lane_worker&) = delete;
  // Starts one run of body on the thread; the previous one must have been waited for.
  void go();
  // Waits for the run go() started; rethrows what it threw.
  void wait();

 private:
  void loop();
  std::function<void()> setup_, body_;
  std::atomic<uint64_t> posted_{0}, done_{0};
  std::atomic<bool> sleeping_{false}, quit_{false};
  std::mutex m_;
  std::condition_variable cv_;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace sluice
