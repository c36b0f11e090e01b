#include "models/cc/received_flow_counts.h"

namespace sluice {

received_flow_counts::received_flow_counts(const sc_core::sc_object& nic, uint32_t node_id, const flow_table& flows,
                                           const stat_desc& desc)
    : counts_(flows.size(), 0) {
  for (const flow& f : flows) {
    if (f.spec.dst != node_id) continue;
    scopes_.push_back(std::make_unique<std::string>("np.flow" + std::to_string(f.id)));
    stat_registry::instance().add(&nic, scopes_.back()->c_str(), &desc, 1, &counts_[f.id]);
  }
}

}  // namespace sluice
