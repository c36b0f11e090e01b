// DCQCN's notification point as a pure state machine (Zhu et al., SIGCOMM'15;
// docs/models/dcqcn.md): when a CE-marked data frame of a flow arrives and no CNP has gone to
// that flow in the last interval, send one CNP at once. So at most one CNP per flow per
// interval (paper: 50 us), the first one without delay.
#pragma once
#include <cstdint>
#include <vector>

namespace sluice {

class cnp_pacer {
 public:
  explicit cnp_pacer(std::size_t flows = 0) : last_(flows, never) {}
  // A data frame of `flow` arrived at now_ps, CE-marked or not; true: send a CNP for it now.
  bool on_data(uint32_t flow, bool ce, uint64_t now_ps, uint64_t interval_ps) {
    if (!ce) return false;
    if (flow >= last_.size()) last_.resize(flow + 1, never);
    if (last_[flow] != never && now_ps - last_[flow] < interval_ps) return false;
    last_[flow] = now_ps;
    return true;
  }

 private:
  static constexpr uint64_t never = UINT64_MAX;
  std::vector<uint64_t> last_;  // by flow id: when its last CNP was sent
};

}  // namespace sluice
