// Egress scheduler "ib-vlarb": InfiniBand VL arbitration (IBA Vol. 1 §7.6.9; OpenSM's
// QoS_management_in_OpenSM.txt). VL15 goes first, always. The other VLs sit in the high-priority
// table (prio<k>.sched = strict) or the low-priority one (dwrr), one entry per VL, each with its
// weight in 64-byte units (prio<k>.weight). A table is served weighted round robin; the
// high-priority table goes first, but once it has sent vlarb.high_limit x 4 KiB while a low VL
// waited, one low-priority packet goes (limit 0: one high packet at a time; 255: no limit).
// Simplification: a packet that overruns its entry's weight is carried as a debt into the
// entry's next visits (deficit round robin), so long-run shares follow the weights for any
// packet size; the specification instead forgives the overrun (one packet per visit).
#include <algorithm>
#include <cstdint>

#include "models/switch/egress_scheduler.h"
#include "models/switch/switch_policies.h"

namespace sluice {
namespace {
constexpr int vl15 = 15;
constexpr int64_t weight_unit = 64, limit_unit = 4096;

// One weighted table: entries in VL order, visited round robin.
class weighted_table {
 public:
  weighted_table(uint32_t members, const std::array<uint32_t, max_classes>& weight) : members_(members) {
    set_weights(weight);
  }
  // A live weight change: each entry's credit per visit from now on (credit held is kept).
  void set_weights(const std::array<uint32_t, max_classes>& weight) {
    for (int q = 0; q < max_classes; ++q) quantum_[q] = static_cast<int64_t>(weight[q]) * weight_unit;
  }
  bool any(uint32_t eligible) const { return eligible & members_; }
  // Serves the current entry while it has credit left, else moves on, refilling as it goes.
  int select(const std::array<uint32_t, max_classes>& head_bytes, uint32_t eligible) {
    const uint32_t ready = eligible & members_;
    if (!ready) return -1;
    for (int pass = 0;; ++pass) {
      for (int step = 0; step < max_classes; ++step) {
        const int q = current_;
        if ((ready >> q) & 1 && deficit_[q] > 0) {
          deficit_[q] -= head_bytes[q];
          if (deficit_[q] <= 0) advance();
          return q;
        }
        if (!((ready >> q) & 1) && deficit_[q] > 0) deficit_[q] = 0;  // an idle entry keeps no credit
        advance();
      }
      // A whole round found every ready entry in debt: skip the rounds that would send nothing.
      if (pass == 0) skip_rounds(ready);
    }
  }

 private:
  void advance() {
    do current_ = (current_ + 1) % max_classes;
    while (!((members_ >> current_) & 1));
    deficit_[current_] += quantum_[current_];
  }
  void skip_rounds(uint32_t ready) {
    int64_t rounds = INT64_MAX;
    for (uint32_t m = ready; m; m &= m - 1) {
      const int q = __builtin_ctz(m);
      rounds = std::min(rounds, -deficit_[q] / quantum_[q]);
    }
    for (uint32_t m = members_; m; m &= m - 1) {
      const int q = __builtin_ctz(m);
      if ((ready >> q) & 1) deficit_[q] += rounds * quantum_[q];
    }
  }
  uint32_t members_;
  int current_ = 0;
  std::array<int64_t, max_classes> quantum_{}, deficit_{};
};

uint32_t members(const scheduler_config& c, bool high) {
  uint32_t m = 0;
  for (int q = 0; q < vl15; ++q)
    if (c.strict[q] == high) m |= 1u << q;
  return m;
}

class vl_arbiter final : public scheduler_if {
 public:
  explicit vl_arbiter(const scheduler_config& c)
      : high_(members(c, true), c.weight), low_(members(c, false), c.weight), limit_(c.high_limit) {
    for (int q = 0; q < vl15; ++q)
      if (c.weight[q] == 0) throw config_error("ib-vlarb: VL " + std::to_string(q) + " has weight 0");
  }
  void reconfigure(const scheduler_config& c) override {  // live weights (their range starts at 1)
    high_.set_weights(c.weight);
    low_.set_weights(c.weight);
  }
  int select(const std::array<uint32_t, max_classes>& head_bytes, uint32_t eligible) override {
    if ((eligible >> vl15) & 1) return vl15;
    const bool low_waits = low_.any(eligible);
    if (!low_waits) high_sent_ = 0;  // the limit counts high bytes sent while a low VL waited
    const bool high_may = limit_ == 255 || !low_waits || high_sent_ < std::max<int64_t>(1, limit_ * limit_unit);
    if (high_may && high_.any(eligible)) {
      const int q = high_.select(head_bytes, eligible);
      high_sent_ += head_bytes[q];
      return q;
    }
    high_sent_ = 0;  // a low-priority packet goes (or none is waiting)
    return low_.select(head_bytes, eligible);
  }

 private:
  weighted_table high_, low_;
  int64_t limit_;
  int64_t high_sent_ = 0;
};

const policy_registrar<scheduler_policies> reg{
    "ib-vlarb",
    "InfiniBand VL arbitration: VL15 first; high (sched=strict) and low weighted tables, weight in 64-B units; "
    "vlarb.high_limit x 4 KiB of high before one low packet",
    [](const scheduler_config& c, const sc_core::sc_object*) { return std::make_unique<vl_arbiter>(c); },
    {"sched", "weight", "vlarb.high_limit"}};
}  // namespace
}  // namespace sluice
