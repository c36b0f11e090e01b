// What a switch's register bank reads besides parameters and statistics: its port count (the
// port block's instances) and class count (the per-class arrays' elements).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "models/regs/register_bank.h"

namespace sluice {

class switch_port;

class switch_registers final : public regs::reg_device_if {
 public:
  switch_registers(const std::vector<std::unique_ptr<switch_port>>& ports, int classes)
      : ports_(ports), classes_(classes) {}
  uint32_t instances(const regs::block_desc& b) const override {
    return b.instance_name[0] ? static_cast<uint32_t>(ports_.size()) : 1;
  }
  uint32_t elements(const regs::register_desc&) const override { return static_cast<uint32_t>(classes_); }
  bool read_value(const char* key, uint32_t, uint64_t& v) const override {
    const std::string k = key;
    if (k == "ports")
      v = ports_.size();
    else if (k == "classes")
      v = static_cast<uint64_t>(classes_);
    else
      return false;
    return true;
  }
  bool write_value(const char*, uint32_t, uint64_t) override { return false; }
  bool command(const char*, uint32_t) override { return false; }
  // A PAUSE frame leaves through a port's MAC, a drop is a port's, and a pause storm the
  // watchdog finds either drops the queued frames or lifts the pause (pause_off).
  std::vector<std::string> interrupt_triggers(const std::string& dev) const override {
    return {dev + ".port*.mac.tx_start", dev + ".port*.drop", dev + ".port*.pfc.pause_off"};
  }

 private:
  const std::vector<std::unique_ptr<switch_port>>& ports_;
  int classes_;
};

}  // namespace sluice
