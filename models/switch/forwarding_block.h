// The default forwarding block of a switch: a static table of equal-cost ports per destination,
// and the forwarding policy <sw>.forwarding that chooses among them (default ecmp: per-flow
// hash). The adaptive policies (adaptive, adaptive-local) take their settings from <sw>.ar.*,
// which have no effect under the oblivious ones.
#pragma once
#include <memory>
#include <systemc>

#include "models/core/params.h"
#include "models/switch/adaptive_steering.h"
#include "models/switch/forwarding_if.h"
#include "models/switch/forwarding_table.h"

namespace sluice {

class forwarding_block : public sc_core::sc_module, public forwarding_if {
 public:
  // `view`: the switch's egress state, shown to an adaptive policy; `ports`: the switch's count.
  forwarding_block(sc_core::sc_module_name name, const congestion_view& view, int ports);
  forwarding_table table;
  choice_param policy;  // named under the switch: "sw0.forwarding"
  choice_param ar_granularity;
  param<sc_core::sc_time> ar_flowlet_gap, ar_aging, ar_hold;
  param<byte_count> ar_queue_threshold;
  param<bool> ar_absorb;
  int route(const packet_header& h, int in_port) const override { return table.lookup(h, in_port); }
  // Makes the chosen policy (idempotent; the switch calls it at the start of simulation).
  void make_selector();
  // The adaptive policy if it wants the notifications the switch forwards and makes, else null.
  adaptive_selector* snooper() const { return steering_ && steering_->snoops() ? steering_ : nullptr; }
  const steering_selector* steering() const { return steering_; }

 private:
  void start_of_simulation() override { make_selector(); }
  const congestion_view& view_;
  int ports_;
  std::unique_ptr<path_selector> selector_;
  steering_selector* steering_ = nullptr;  // selector_, when it is an adaptive policy
};

}  // namespace sluice
