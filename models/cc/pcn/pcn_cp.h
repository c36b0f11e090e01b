// PCN's congestion point, NP-ECN, as a pure state machine (Cheng et al., NSDI'20, section 5.1 and
// Fig. 7; docs/models/pcn.md). When the port's class resumes after a pause with N frames waiting,
// PN <- N: those N leave unmarked (they were held by PFC, not by this port's own congestion).
// Every later frame is marked CE with a zero queue threshold: if the queue was not empty when
// it arrived, i.e. it had to wait. So only really congested ports mark every frame; a port that
// is merely paused (quasi-congestion) marks only what arrives while its paused backlog drains.
//
// The registered policy (pcn_cp.cpp) sees frames as they leave: it learns of a resume from the
// port's flow control (the end of the latest OFF period) at the first departure after it, and
// takes N as the frames in the queue then, the departing one included.
#pragma once
#include <cstdint>

namespace sluice {

class np_ecn {
 public:
  // A data frame leaves. off_end_ps: when the class's latest OFF period ended (0: never paused);
  // queued: frames in the queue with the departing one; behind: the departing frame found another
  // frame queued ahead of it (not counting one on the wire). Returns whether to mark it CE.
  bool on_dequeue(uint64_t off_end_ps, uint32_t queued, bool behind) {
    if (off_end_ps > seen_off_end_) {  // a resume since the last departure: PN <- N
      seen_off_end_ = off_end_ps;
      pn_ = queued;
    }
    if (pn_ > 0) {
      --pn_;
      return false;
    }
    return behind;
  }
  uint32_t pn() const { return pn_; }

 private:
  uint32_t pn_ = 0;
  uint64_t seen_off_end_ = 0;
};

}  // namespace sluice
