#include "models/nic/nic_registers.h"

#include <cmath>
#include <cstring>

#include "models/nic/nic.h"

namespace sluice {

uint32_t nic_registers::instances(const regs::block_desc& b) const {
  return b.instance_name[0] ? static_cast<uint32_t>(nic_.flows_sent().size()) : 1;
}

bool nic_registers::read_value(const char* key, uint32_t slot, uint64_t& v) const {
  const std::string k = key;
  if (k == "flows")
    v = nic_.flows_sent().size();
  else if (k == "classes")
    v = static_cast<uint64_t>(classes_);
  if (k == "flows" || k == "classes") return true;
  if (slot >= nic_.flows_sent().size()) return false;
  const uint32_t id = nic_.flows_sent()[slot];
  const flow_spec& f = nic_.flow_of(id).spec;
  auto mbps = [](data_rate r) { return static_cast<uint64_t>(std::llround(r.bps / 1e6)); };
  if (k == "flow.id")
    v = id;
  else if (k == "flow.dst")
    v = f.dst;
  else if (k == "flow.prio")
    v = f.priority;
  else if (k == "flow.rate")
    v = mbps(nic_.limiter(id).rate());
  else if (k == "flow.target")
    v = nic_.reaction_point(id) ? mbps(nic_.reaction_point(id)->target_rate()) : 0;
  else
    return false;
  return true;
}

// A flow's rate register: the limiter takes the rate at the write's time (0: no limit), as a
// reaction point's decision would; the flow's reaction point may change it again.
bool nic_registers::write_value(const char* key, uint32_t slot, uint64_t v) {
  if (std::strcmp(key, "flow.rate") != 0 || slot >= nic_.flows_sent().size()) return false;
  nic_.limiter(nic_.flows_sent()[slot]).set_rate(data_rate{static_cast<double>(v) * 1e6});
  return true;
}

bool nic_registers::command(const char* action, uint32_t slot) {
  if (std::strcmp(action, "flow.release") != 0 || slot >= nic_.flows_sent().size()) return false;
  nic_.limiter(nic_.flows_sent()[slot]).set_rate(data_rate{0});
  return true;
}

}  // namespace sluice
