// What a NIC's register bank reads and writes besides parameters and statistics: its flow
// slots (the flows it sends, in the order added) with each flow's identity, rate limit and
// reaction point's target, and its class count.
#pragma once
#include "models/regs/register_bank.h"

namespace sluice {

class nic;

class nic_registers final : public regs::reg_device_if {
 public:
  nic_registers(nic& n, int classes) : nic_(n), classes_(classes) {}
  uint32_t instances(const regs::block_desc& b) const override;
  uint32_t elements(const regs::register_desc&) const override { return static_cast<uint32_t>(classes_); }
  bool read_value(const char* key, uint32_t slot, uint64_t& v) const override;
  bool write_value(const char* key, uint32_t slot, uint64_t v) override;
  bool command(const char* action, uint32_t slot) override;
  // CNPs, CNMs and PAUSE frames all arrive through the NIC's port.
  std::vector<std::string> interrupt_triggers(const std::string& dev) const override {
    return {dev + ".port0.mac.rx_end"};
  }

 private:
  nic& nic_;
  int classes_;
};

}  // namespace sluice
