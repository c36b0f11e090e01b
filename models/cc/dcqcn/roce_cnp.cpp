#include "models/cc/dcqcn/roce_cnp.h"

#include "models/protocol/roce_frame.h"

namespace sluice {

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

}  // namespace sluice
