// A counter per flow a NIC receives, for notification points: registered as the statistic
// <nic>.np.flow<id>.<leaf of `desc`> for each flow whose destination is `node_id`.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "models/cc/flow.h"
#include "models/core/stats.h"

namespace sluice {

class received_flow_counts {
 public:
  received_flow_counts(const sc_core::sc_object& nic, uint32_t node_id, const flow_table& flows, const stat_desc& desc);
  void add(uint32_t flow_id) {
    if (flow_id < counts_.size()) ++counts_[flow_id];
  }

 private:
  std::vector<uint64_t> counts_;                      // by flow id; sized once, so the registered addresses stay valid
  std::vector<std::unique_ptr<std::string>> scopes_;  // "np.flow3", kept for the registry
};

}  // namespace sluice
