// The empty notification and reaction points; the others register next to their code.
#include "models/nic/nic_policies.h"

#include "models/protocol/roce_frame.h"

namespace sluice {

namespace {
const policy_registrar<np_policies> no_np{"none", "no notification point",
                                          [](const sc_core::sc_object&, control_sender_if&, const flow_table&) {
                                            return std::unique_ptr<notification_point_if>();
                                          }};
const policy_registrar<rp_policies> no_rp{"none", "no reaction point: flows keep their configured rate",
                                          [](const sc_core::sc_object&, const mac_port&) {
                                            return std::unique_ptr<reaction_point_maker>();
                                          }};
}  // namespace

tlm::tlm_generic_payload* make_roce_cnp(const packet_header& data, uint32_t from, uint64_t now_ps, uint8_t ecn,
                                        uint32_t rate_mbps) {
  tlm::tlm_generic_payload* p = make_feedback_frame(frame_kind::cnp, data, from, now_ps);
  packet_header& h = header(*p);
  h.size = roce::cnp_bytes;
  h.ecn = ecn;
  roce::headers w = roce::reply_to(data, h.src, roce::opcode_cnp);
  w.ecn = ecn;
  w.cnp_rate_mbps = rate_mbps;
  roce::encode(w, h.image->data());
  return p;
}

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
