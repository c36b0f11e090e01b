// InfiniBand congestion control (IBTA Vol. 1 Annex A10) at the source CA, as a pure state
// machine (docs/models/infiniband.md; [IBTA-A10], [hfi1] process_becn / cca_timer_fn):
//   BECN:        CCTI <- min(CCTI + CCTI_Increase, CCTI_Limit); the timer starts if idle
//   timer:       if CCTI > CCTI_Min: CCTI <- CCTI - 1; it re-arms while CCTI > CCTI_Min
//   delay:       IPD = (T_pkt >> shift) x multiplier, from the table entry CCT[CCTI]
//   hold (TCD's UE under ib-cca-tcd): CCTI stays; a running timer's next decrement waits a full
//                period from the hold (no recovery while the victim signal lasts)
// The policy (ib_cca_rp.cpp) paces the flow at the equivalent rate: a packet of T_pkt then IPD
// of silence is line x T_pkt / (T_pkt + IPD) = line / (1 + multiplier / 2^shift).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "models/core/units.h"

namespace sluice {

struct cct_entry {
  uint8_t shift = 0;        // 2 bits
  uint16_t multiplier = 0;  // 14 bits
  // The flow's share of the line rate under this entry.
  double rate_share() const { return 1.0 / (1.0 + multiplier / static_cast<double>(1u << shift)); }
};

// A table of limit + 1 entries, entry 0 no delay: quadratic (the vendor default: multiplier
// ~ i^2) or linear, reaching `max_delay` packet times at the last entry (shift 0).
inline std::vector<cct_entry> make_cct(uint32_t limit, double max_delay, bool quadratic) {
  std::vector<cct_entry> t(limit + 1);
  for (uint32_t i = 1; i <= limit; ++i) {
    const double x = static_cast<double>(i) / limit;
    t[i].multiplier = static_cast<uint16_t>(std::min(16383.0, std::floor(max_delay * (quadratic ? x * x : x))));
  }
  return t;
}

// A table given entry by entry (the CCM's CongestionControlTable as the scenario loads it):
// "shift:multiplier" entries, index 0 first, separated by commas and/or spaces. `key` names the
// parameter in the one-line errors (a malformed entry, a field out of its 2/14 bits, no entry).
inline std::vector<cct_entry> parse_cct(const std::string& text, const std::string& key) {
  std::vector<cct_entry> t;
  std::size_t i = 0;
  while ((i = text.find_first_not_of(", \t", i)) != std::string::npos) {
    const std::size_t end = std::min(text.find_first_of(", \t", i), text.size());
    const std::string item = text.substr(i, end - i);
    const std::size_t colon = item.find(':');
    const auto bad = [&](const std::string& why) {
      return config_error(key + ": '" + item + "' (entry " + std::to_string(t.size()) + ") " + why);
    };
    if (colon == std::string::npos) throw bad("is not shift:multiplier");
    const std::string shift = item.substr(0, colon), mult = item.substr(colon + 1);
    const auto digits = [](const std::string& d) {
      return !d.empty() && d.size() <= 5 && d.find_first_not_of("0123456789") == std::string::npos;
    };
    if (!digits(shift) || !digits(mult)) throw bad("is not shift:multiplier");
    if (std::stoul(shift) > 3) throw bad("has a shift above 3 (2 bits)");
    if (std::stoul(mult) > 16383) throw bad("has a multiplier above 16383 (14 bits)");
    t.push_back({static_cast<uint8_t>(std::stoul(shift)), static_cast<uint16_t>(std::stoul(mult))});
    i = end;
  }
  if (t.empty()) throw config_error(key + ": '" + text + "' is an empty table");
  return t;
}

struct ib_cca_config {
  uint32_t increase{}, limit{}, min{};
};

class ib_cca_state {
 public:
  // Returns true if the timer must be started (it was idle).
  bool on_becn(const ib_cca_config& c) {
    ccti_ = std::min(ccti_ + c.increase, c.limit);
    ++becns_;
    const bool start = !timer_running_ && ccti_ > c.min;
    timer_running_ = timer_running_ || start;
    return start;
  }
  // One timer expiry; returns true if the timer re-arms.
  bool on_timer(const ib_cca_config& c) {
    if (ccti_ > c.min) --ccti_;
    timer_running_ = ccti_ > c.min;
    return timer_running_;
  }
  // A hold at now_ps: with the timer running, no decrement before now_ps + timer_ps.
  void on_hold(uint64_t now_ps, uint64_t timer_ps) {
    ++holds_;
    if (timer_running_) hold_until_ = now_ps + timer_ps;
  }
  // Whether a timer expiry at now_ps falls inside a hold (then it re-arms at hold_until()).
  bool held(uint64_t now_ps) const { return now_ps < hold_until_; }
  uint64_t hold_until() const { return hold_until_; }
  uint64_t holds() const { return holds_; }
  uint32_t ccti() const { return ccti_; }
  uint64_t becns() const { return becns_; }
  bool timer_running() const { return timer_running_; }

 private:
  uint32_t ccti_ = 0;
  uint64_t becns_ = 0, holds_ = 0, hold_until_ = 0;
  bool timer_running_ = false;
};

}  // namespace sluice
