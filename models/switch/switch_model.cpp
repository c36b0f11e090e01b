#include "models/switch/switch_model.h"

#include "models/core/stats.h"

namespace sluice {
namespace {
std::vector<std::string> port_names(const std::string& sw, std::size_t n) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < n; ++i) names.push_back(sw + ".port" + std::to_string(i));
  return names;
}
}  // namespace

switch_model::switch_model(sc_core::sc_module_name name, uint32_t node_id, int num_ports)
    : sc_module(name),
      pipeline(std::string(this->name()) + ".pipeline", sc_core::sc_time(500, sc_core::SC_NS),
               "store-and-forward latency: a frame may leave its egress queue this long after its last bit arrived",
               sc_core::SC_ZERO_TIME, sc_core::sc_time(1, sc_core::SC_MS)),
      mmu_port("mmu_port"),
      forwarding_port("forwarding_port"),
      mmu_block("mmu", port_names(this->name(), num_ports)),
      forwarding("forwarding"),
      node_id_(node_id) {
  add_stat(this->name(), "unroutable", "frames", "frames dropped for want of a route",
           [this] { return static_cast<double>(unroutable_); });
  for (int i = 0; i < num_ports; ++i) {
    uint64_t mac = (static_cast<uint64_t>(0x02) << 40) | (static_cast<uint64_t>(node_id) << 8) | i;
    ports.push_back(std::make_unique<switch_port>(("port" + std::to_string(i)).c_str(), static_cast<int>(i), mac,
                                                  mmu_port, &ports));
    ports.back()->mac.attach(ports.back().get(), this);
  }
}

// The default blocks are bound last, so bind_mmu / bind_forwarding may replace them during
// elaboration.
void switch_model::before_end_of_elaboration() {
  mmu_port.bind(custom_mmu_ ? *custom_mmu_ : static_cast<mmu_if&>(mmu_block));
  forwarding_port.bind(custom_forwarding_ ? *custom_forwarding_ : static_cast<forwarding_if&>(forwarding));
}

void switch_model::receive_frame(tlm::tlm_generic_payload* p, int port_index) {
  packet_header& h = header(*p);
  h.ingress_port = static_cast<uint16_t>(port_index);
  bool xoff_due = false;
  switch_port& in = *ports[port_index];
  bool admitted = mmu_port->admit(port_index, h.priority, h.size, xoff_due);
  if (xoff_due) in.pause_upstream(h.priority);  // also when the frame that tipped it is dropped
  if (!admitted) {
    in.count_drop(h.priority);
    p->release();
    return;
  }
  int out = forwarding_port->route(h, port_index);
  if (out < 0) return drop_unroutable(p);
  h.ready_ps = to_ps(sc_core::sc_time_stamp() + pipeline());
  ports[out]->enqueue(p);
}

// The fabric builder checks reachability up front; count rather than crash if one slips by.
void switch_model::drop_unroutable(tlm::tlm_generic_payload* p) {
  packet_header& h = header(*p);
  ++unroutable_;
  bool xon_due = false;
  mmu_port->release(h.ingress_port, h.priority, h.size, xon_due);
  if (xon_due) ports[h.ingress_port]->resume_upstream(h.priority);
  ports[h.ingress_port]->count_drop(h.priority);
  p->release();
}

}  // namespace sluice
