// A shared-buffer switch: N ports, a fabric-given number of traffic classes, ingress accounting
// with link-level flow control, a fixed-latency forwarding pipeline, per-port egress queues and
// schedulers with congestion-point slots.
// A frame's walk: MAC rx -> ingress (MMU admit; the ingress port's flow control hears it) ->
// forwarding (table + ECMP) -> egress queue, eligible once the pipeline latency has passed ->
// scheduler -> MAC tx (MMU release; the ingress port's flow control hears it: XON).
// The switch mediates between ports: an egress port returns bytes to the switch, which tells
// the MMU and then the ingress port's flow control; no port holds its siblings.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "models/cc/firmware/firmware_rp.h"
#include "models/regs/register_target.h"
#include "models/switch/congestion_view.h"
#include "models/switch/forwarding_block.h"
#include "models/switch/forwarding_if.h"
#include "models/switch/forwarding_table.h"
#include "models/switch/mmu.h"
#include "models/switch/split_forwarding.h"
#include "models/switch/split_mmu.h"
#include "models/switch/switch_port.h"
#include "models/switch/switch_registers.h"

namespace sluice {

class switch_model : public sc_core::sc_module,
                     public frame_sink_if,
                     public route_answer_if,
                     public admission_answer_if,
                     public frame_injector_if,
                     public buffer_release_if,
                     public ingress_state_if,
                     public resume_listener,
                     public congestion_view,
                     private param_listener {
 public:
  param<sc_core::sc_time> pipeline;            // live
  param<sc_core::sc_time> forwarding_latency;  // > 0: lookups through the split-phase path
  param<sc_core::sc_time> admission_latency;   // > 0: admissions through the split-phase path
  choice_param buffer_release;
  sc_core::sc_port<mmu_if> mmu_port;
  sc_core::sc_port<forwarding_if> forwarding_port;
  mmu mmu_block;
  forwarding_block forwarding;
  std::vector<std::unique_ptr<switch_port>> ports;
  regs::register_target registers;  // "sw0.regs": the register bank's TLM target (docs/cosimulation.md)
  firmware_params firmware;         // control-plane firmware, configuring the switch from time 0

  switch_model(sc_core::sc_module_name name, uint32_t node_id, int num_ports, int classes,
               link_layer layer = link_layer::cee);

  // Replace the default MMU or forwarding block (an RTL adapter, another policy); call during
  // elaboration, before sc_start. The default's parameters remain but no longer act.
  void bind_mmu(mmu_if& replacement) {
    custom_mmu_ = &replacement;
    mmu_block.set_replaced();
  }
  void bind_forwarding(forwarding_if& replacement) { custom_forwarding_ = &replacement; }
  // A forwarding block that answers later (split phase); `forwarding_latency` then has no effect.
  void bind_split_forwarding(split_forwarding_if& replacement) { custom_split_forwarding_ = &replacement; }
  // An admission block that answers later (split phase; the immediate mmu_if, bound or default,
  // still takes the releases and the pause queries); `admission_latency` then has no effect.
  void bind_split_mmu(split_mmu_if& replacement) { custom_split_mmu_ = &replacement; }

  void receive_frame(tlm::tlm_generic_payload* frame, int port_index) override;
  void routed(tlm::tlm_generic_payload* frame, int out_port) override;                    // a split-phase answer
  void admitted(tlm::tlm_generic_payload* frame, bool admitted, bool xoff_due) override;  // another
  void inject(tlm::tlm_generic_payload* frame) override;
  uint32_t node_id() const override { return node_id_; }
  int classes() const { return classes_; }
  uint64_t unroutable() const { return unroutable_; }
  const mmu_if& active_mmu() const { return *mmu_port.operator->(); }
  // Makes the policies that declare parameters of their own (congestion points); the
  // simulation calls it between the two passes of the overrides. Idempotent.
  void make_policies();
  // Cross-parameter checks of the ports' congestion points against the MMU bound by bind_mmu
  // (or the default), once the overrides and derived defaults are final.
  void check_policies() const {
    for (const auto& p : ports) p->check_policies(custom_mmu_ ? *custom_mmu_ : static_cast<const mmu_if&>(mmu_block));
  }
  // A message to this switch's firmware (its mailbox handler), answered now (config_error: none).
  std::string firmware_mailbox(const std::string& message);

 private:
  void before_end_of_elaboration() override;
  void start_of_simulation() override;
  void release(int ingress_port, int cls, uint32_t bytes, uint64_t now) override;
  pause_check recheck_pause(int port, int cls) override;
  uint64_t xon_gap_bytes(int port, int cls) const override { return active_mmu().xon_offset_bytes(port, cls); }
  std::string never_pauses() const override;
  void resumed(int port, int cls) override { ports[port]->gate().on_release(cls, 0, true); }
  void drop_unroutable(tlm::tlm_generic_payload* frame);
  // A release through a bound MMU or a gate other than our PFC: out of line, so that release()'s
  // own path (our MMU and PFC) saves no registers and ends in the MMU's tail call.
  [[gnu::noinline]] void release_through_interfaces(int ingress_port, int cls, uint32_t bytes, uint64_t now);
  // The congestion view an adaptive forwarding policy reads (congestion_view.h).
  uint64_t queue_bytes(int port, const frame_fields& f) const override;
  bool blocked(int port, const frame_fields& f, uint64_t now_ps) const override;
  int out_class(int port, const frame_fields& f) const {
    return path_[port].credits ? path_[port].credits->vl_of(f.sl) : f.priority;
  }
  // Shows a passing congestion notification to the adaptive policy (snooper_ set only then);
  // true: the policy acted on it and it goes no further.
  bool snoop(const packet_header& h, bool local);
  adaptive_selector* snooper_ = nullptr;
  void param_changed(const param_base&) override;
  mmu_if* custom_mmu_ = nullptr;
  forwarding_if* custom_forwarding_ = nullptr;
  split_forwarding_if* custom_split_forwarding_ = nullptr;
  std::unique_ptr<latency_forwarding> latency_forwarding_;
  split_mmu_if* custom_split_mmu_ = nullptr;
  std::unique_ptr<latency_mmu> latency_mmu_;
  // A frame's way when not own_path_ (a bound or split-phase block, a snooping policy, a port
  // with credits) or outside a drain: out of line, so that receive_frame's own path tests one flag.
  [[gnu::noinline]] void receive_through_seams(tlm::tlm_generic_payload* frame, int port_index);
  // receive_frame's own path when the admission left something to do (a pause, a resume point, a
  // drop, another rule), or the route a choice: out of line, so that the common path saves no registers.
  [[gnu::noinline]] void finish_admission_then_forward(tlm::tlm_generic_payload* frame, admit_rest rest, uint64_t now);
  [[gnu::noinline]] void route_then_forward(tlm::tlm_generic_payload* frame, uint64_t now);
  // The ingress port's flow control hears an admission's verdict (our PFC inline).
  [[gnu::always_inline]] inline void hear_admission(int port, const packet_header& h, admit_outcome a);
  // Inlined into both callers, so the immediate path costs what it did before the split form.
  [[gnu::always_inline]] inline void after_admission(tlm::tlm_generic_payload* frame, packet_header& h, int port,
                                                     admit_outcome a, uint64_t now);
  // A bound MMU's admission (its xoff flag by reference): out of line, so that receive_frame
  // passes no local by address and its enqueue stays a tail call.
  [[gnu::noinline]] admit_outcome admit_through_interface(int port, const packet_header& h);
  [[gnu::noinline]] void drop_refused(tlm::tlm_generic_payload* frame, int port);  // the MMU refused it
  void forward(tlm::tlm_generic_payload* frame, int out_port, uint64_t now);
  struct port_path;
  void enqueue_after_pipeline(tlm::tlm_generic_payload* frame, const port_path& to, uint64_t now);
  // What a frame's way through the switch reads, resolved at the start of simulation and kept
  // together: the bound MMU and forwarding blocks, the pipeline latency, and per port its gate,
  // egress port and credit block (InfiniBand).
  struct port_path {
    flow_control_if* gate;
    egress_port* egress;
    const credit_flow_control* credits;
    // gate when it is the port's own PFC (no credits): asked by its qualified names, inline (an
    // admission pauses only on XOFF; a release without XON is nothing to it), not through thunks.
    pfc* own_pfc;
  };
  std::vector<port_path> path_;
  mmu_if* mmu_ = nullptr;
  // mmu_ when it is this switch's own block (no bind_mmu): its admit and release are called
  // qualified, inline, not through mmu_if's thunks (one each per frame).
  mmu* own_mmu_ = nullptr;
  forwarding_if* forward_ = nullptr;
  // forward_ when it is this switch's own block (no bind_forwarding): route called qualified.
  const forwarding_block* own_forward_ = nullptr;
  split_forwarding_if* split_forward_ = nullptr;  // set: lookups are asked and answered later
  split_mmu_if* split_mmu_ = nullptr;             // set: admissions are asked and answered later
  // own_releases_ and own_forward_ set, no split-phase block and no snooper_: receive_frame's one test.
  bool own_path_ = false;
  // own_mmu_ set and every port's gate its own PFC: release's one test (not the port's gate per frame).
  bool own_releases_ = false;
  uint64_t pipeline_ps_ = 0;
  uint32_t node_id_;
  int classes_;
  uint64_t unroutable_ = 0;
  switch_registers register_device_{ports, classes_};
  std::unique_ptr<device_firmware> firmware_;  // `firmware`, made with the policies
};

}  // namespace sluice
