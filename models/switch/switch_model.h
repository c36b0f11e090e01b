// A shared-buffer Ethernet switch: N ports, 8 priorities, ingress accounting with PFC, a
// fixed-latency forwarding pipeline, per-port egress queues and schedulers.
// A frame's walk: MAC rx -> ingress (MMU admit; PFC XOFF upstream) -> forwarding (table +
// ECMP) -> egress queue, eligible once the pipeline latency has passed -> scheduler -> MAC tx
// (MMU release; XON). Holding the frame in its egress queue until it is ready, rather than in a
// separate delay stage, costs no kernel event when the port is busy (the common case under load).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "models/switch/forwarding_table.h"
#include "models/switch/mmu.h"
#include "models/switch/switch_port.h"

namespace sluice {

// The default forwarding block: a static table with per-flow ECMP.
class forwarding_block : public sc_core::sc_module, public forwarding_if {
 public:
  explicit forwarding_block(sc_core::sc_module_name name) : sc_module(name) {}
  forwarding_table table;
  int route(const packet_header& h, int in_port) const override { return table.lookup(h.dst, h.src, h.flow_id); }
};

class switch_model : public sc_core::sc_module, public frame_sink_if {
 public:
  param<sc_core::sc_time> pipeline;
  sc_core::sc_port<mmu_if> mmu_port;
  sc_core::sc_port<forwarding_if> forwarding_port;
  mmu mmu_block;
  forwarding_block forwarding;
  std::vector<std::unique_ptr<switch_port>> ports;

  switch_model(sc_core::sc_module_name name, uint32_t node_id, int num_ports);

  // Replace the default MMU or forwarding block (an RTL adapter, another policy); call during
  // elaboration, before sc_start. The default's parameters remain but no longer act.
  void bind_mmu(mmu_if& replacement) { custom_mmu_ = &replacement; }
  void bind_forwarding(forwarding_if& replacement) { custom_forwarding_ = &replacement; }

  void receive_frame(tlm::tlm_generic_payload* frame, int port_index) override;
  uint32_t node_id() const { return node_id_; }
  uint64_t unroutable() const { return unroutable_; }

 private:
  void before_end_of_elaboration() override;
  void drop_unroutable(tlm::tlm_generic_payload* frame);
  mmu_if* custom_mmu_ = nullptr;
  forwarding_if* custom_forwarding_ = nullptr;
  uint32_t node_id_;
  uint64_t unroutable_ = 0;
};

}  // namespace sluice
