// One port of a switch: its MAC, its flow-control component (PFC), and its egress queues with
// their scheduler. The port's parameters and statistics live under its module name
// ("sw0.port3"). It holds no reference to its sibling ports: the switch mediates between them.
#pragma once
#include <array>
#include <memory>
#include <vector>

#include "models/cc/frame_injector.h"
#include "models/core/line_arena.h"
#include "models/link/credit_flow_control.h"
#include "models/link/mac_port.h"
#include "models/link/pfc.h"
#include "models/switch/egress_port.h"
#include "models/switch/egress_scheduler.h"
#include "models/switch/mmu_if.h"

namespace sluice {

// In the line arena (line_arena.h): its line-aligned MAC and egress port without a malloc block's padding.
class switch_port : public sc_core::sc_module,
                    public pause_storm_listener,
                    private param_listener,
                    public in_line_arena {
 public:
  mac_port mac;
  pfc flow_control;                              // PFC of a CEE port; present but unattached on an InfiniBand port
  std::unique_ptr<credit_flow_control> credits;  // an InfiniBand port's credits (null on CEE)
  // Per class, each class's parameter made only when named (param_family: most stay at their defaults).
  class_params<choice_param> sched;
  class_params<param<uint64_t>> weight;         // live
  param<byte_count> quantum;                    // live
  std::unique_ptr<param<uint64_t>> high_limit;  // InfiniBand ports: VLHighLimit of ib-vlarb
  choice_param scheduler;                       // the egress scheduler policy, by name
  param<sc_core::sc_time> scheduler_latency;    // > 0: decisions through the split-phase path
  param<bool> scheduler_ahead;                  // split-phase path: the next decision asked as a frame starts
  class_params<choice_param> cp;                // per class: the congestion point policy
  egress_port egress;

  switch_port(sc_core::sc_module_name name, int index, uint64_t mac_address, int classes, ingress_state_if& ingress,
              buffer_release_if& buffer, const sc_core::sc_port<mmu_if>& mmu, link_layer layer = link_layer::cee);

  // The flow-control component attached to the MAC: credits on InfiniBand, else PFC.
  flow_control_if& gate() { return credits ? static_cast<flow_control_if&>(*credits) : flow_control; }

  // Replaces the scheduler chosen by `scheduler` (e.g. with an RTL adapter); call before sc_start.
  void bind_scheduler(scheduler_if& s) { custom_scheduler_ = &s; }
  // Replaces it with a split-phase scheduler (an RTL or firmware block that answers later);
  // call before sc_start. `scheduler_latency` then has no effect.
  void bind_split_scheduler(split_scheduler_if& s) { custom_split_ = &s; }
  // The scheduler that decides: the bound one, else the one `scheduler` names (made when the
  // fabric makes the port's policies).
  scheduler_if& active_scheduler() { return custom_scheduler_ ? *custom_scheduler_ : *default_scheduler_; }
  // Makes the congestion points chosen by `cp` (they may declare parameters of their own under
  // this port); once, after the first pass of the overrides. A class whose choice is "none"
  // keeps whatever egress.set_congestion_point bound.
  void make_policies(frame_injector_if& injector);
  // Cross-parameter checks of the chosen congestion points, once the overrides are final;
  // `buffer` is the switch's MMU (its capacity bounds every queue).
  void check_policies(const mmu_if& buffer) const {
    for (int i = 0; i < static_cast<int>(cps_.size()); ++i)
      if (cps_[i]) cps_[i]->policy->check(buffer.capacity_bytes(i));
  }
  congestion_point_if* congestion_point(int cls) const {
    return cls < static_cast<int>(cps_.size()) && cps_[cls] ? cps_[cls]->policy.get() : nullptr;
  }
  // CNMs (QCN, ECM, ASM) the class's congestion point made, counted on their way to the switch.
  uint64_t cnm_sent(int cls) const {
    return cls < static_cast<int>(cps_.size()) && cps_[cls] ? cps_[cls]->injector.cnms : 0;
  }

  int index() const { return mac.index(); }
  int classes() const { return egress.classes(); }
  queue_stats queue(int cls) const { return egress.queue(cls); }
  uint64_t drops(int cls) const { return drops_[cls].all; }
  uint64_t unroutable_drops(int cls) const { return drops_[cls].unroutable; }
  // A frame of this port's ingress dropped: refused by the MMU, or with no route (unroutable).
  void count_drop(int cls, bool unroutable = false);
  // The PFC watchdog's drop action on this port's class queue.
  void on_pause_storm(int cls, bool dropping) override { egress.set_discard(cls, dropping); }
  bool holds_frames(int cls) const override { return egress.queue(cls).frames > 0; }
  // The priority group (this port, cls) as the bound MMU accounts it.
  pg_usage usage(int cls) const { return mmu_->usage(index(), cls); }

 private:
  void start_of_simulation() override;
  void param_changed(const param_base&) override;
  scheduler_config scheduler_settings() const;
  void make_scheduler();
  static std::string inert_reason(const void* port, const param_base& p);
  std::unique_ptr<scheduler_if> default_scheduler_;
  // Which classes were strict when the scheduler was made (all of its configuration a port keeps:
  // the scheduler has its own copy, and a port's 88 bytes were 4 MB of a 10 000-host fabric).
  decltype(scheduler_config::strict) made_strict_{};
  // The switch as one class's congestion point sees it: it counts the CNMs passed on.
  struct counting_injector final : frame_injector_if {
    frame_injector_if* to = nullptr;
    uint64_t cnms = 0;
    void inject(tlm::tlm_generic_payload* frame) override;
    uint32_t node_id() const override { return to->node_id(); }
  };
  // One per class the port has (not max_classes: a large fabric has tens of thousands of ports).
  struct class_drops {
    uint64_t all = 0, unroutable = 0;
  };
  std::unique_ptr<class_drops[]> drops_;
  // A class's congestion point and the injector that counts its CNMs, made only for a class whose
  // `cp` chose one (most fabrics choose none: 40 bytes a class less on every port; docs/scale.md).
  struct class_cp {
    std::unique_ptr<congestion_point_if> policy;
    counting_injector injector;
  };
  std::vector<std::unique_ptr<class_cp>> cps_;  // empty while no class has one
  bool policies_made_ = false;
  scheduler_if* custom_scheduler_ = nullptr;
  split_scheduler_if* custom_split_ = nullptr;
  std::unique_ptr<latency_scheduler> latency_scheduler_;
  const sc_core::sc_port<mmu_if>& mmu_;
};

}  // namespace sluice
