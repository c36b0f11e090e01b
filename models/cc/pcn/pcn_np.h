// PCN's notification point as a pure state machine, one per flow (Cheng et al., NSDI'20,
// section 5.2 and Fig. 8; docs/models/pcn.md). A period of T starts with the flow's first frame.
// At its end, if frames arrived: the flow is congested if at least 95 % of them were CE-marked,
// its receiving rate is their bytes over T (one frame only: its size over the time since the
// flow's previous frame), and a CNP carries both; then the next period starts. If nothing
// arrived, no CNP and the timer stops; the flow's next frame starts a new period.
#pragma once
#include <cstdint>

namespace sluice {

struct pcn_cnp {
  bool congested = false;
  double rate_bps = 0;  // the receiving rate
};

class pcn_np_flow {
 public:
  // A frame of `bytes` wire bytes arrived at now_ps; true: it starts a period (the caller
  // schedules on_period_end at now_ps + T).
  bool on_data(uint32_t bytes, bool ce, uint64_t now_ps) {
    const bool starts = !running_;
    if (starts) running_ = true;
    ++frames_;
    marked_ += ce;
    bytes_ += bytes;
    last_bytes_ = bytes;
    gap_ps_ = seen_ ? now_ps - last_ps_ : 0;
    last_ps_ = now_ps;
    seen_ = true;
    return starts;
  }
  // The period of `period_ps` ended. Returns false (no CNP, timer stopped) if nothing arrived;
  // else true with the CNP's contents in `cnp`, and the next period has started.
  bool on_period_end(uint64_t period_ps, double congested_share, pcn_cnp& cnp) {
    if (frames_ == 0) {
      running_ = false;
      return false;
    }
    cnp.congested = static_cast<double>(marked_) >= congested_share * static_cast<double>(frames_);
    // One frame: size over the inter-arrival time (the period itself for a flow's first frame).
    const uint64_t over = frames_ > 1 || gap_ps_ == 0 ? period_ps : gap_ps_;
    const uint64_t bytes = frames_ > 1 ? bytes_ : last_bytes_;
    cnp.rate_bps = static_cast<double>(bytes) * 8e12 / static_cast<double>(over);
    frames_ = marked_ = 0;
    bytes_ = 0;
    return true;
  }
  bool running() const { return running_; }

 private:
  bool running_ = false, seen_ = false;
  uint32_t frames_ = 0, marked_ = 0;
  uint64_t bytes_ = 0, last_bytes_ = 0, last_ps_ = 0, gap_ps_ = 0;
};

// The CNP's 32-bit RecRate field: the rate in units of 1 Mb/s, rounded to the nearest, saturated.
inline uint32_t pcn_rate_field(double rate_bps) {
  const double mbps = rate_bps / 1e6 + 0.5;
  return mbps >= 4294967295.0 ? 0xFFFFFFFFu : static_cast<uint32_t>(mbps);
}

}  // namespace sluice
