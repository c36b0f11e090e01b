// Notification point "ecn-count": counts the CE-marked (ECN 3) data frames of each flow this NIC
// receives, as statistics <nic>.np.flow<id>.ce_frames and the total <nic>.np.ce_frames. It sends
// nothing back (a DCQCN NP would answer each marked flow with a CNP through `sender`).
#include <string>
#include <vector>

#include "models/cc/notification_point.h"
#include "models/cc/received_flow_counts.h"
#include "models/core/stats.h"

namespace sluice {
namespace {
double read_count(const void* m, int) { return static_cast<double>(*static_cast<const uint64_t*>(m)); }
const stat_desc flow_stat[] = {
    {"ce_frames", "frames", "CE-marked data frames of this flow received (ecn-count)", read_count, stat_kind::counter}};

class ecn_count final : public notification_point_if {
 public:
  ecn_count(const sc_core::sc_object& nic, uint32_t node_id, const flow_table& flows)
      : total_(&nic, "np",
               [] {
                 return stat_desc{"ce_frames", "frames", "CE-marked data frames received (ecn-count)", nullptr};
               }),
        ce_(nic, node_id, flows, flow_stat[0]) {}
  void on_data(const packet_header& h, uint64_t) override {
    if (h.ecn != 3) return;
    ++total_;
    ce_.add(h.flow_id);
  }

 private:
  stat_counter total_;
  received_flow_counts ce_;
};

const policy_registrar<np_policies> reg{
    "ecn-count", "count CE-marked data frames per flow (statistics np.flow<id>.ce_frames)",
    [](const sc_core::sc_object& nic, control_sender_if& sender, const flow_table& flows) {
      return std::make_unique<ecn_count>(nic, sender.node_id(), flows);
    }};
}  // namespace
}  // namespace sluice
