// Makes an 802.1Qau CNM (QCN's, or ECM's BCN in the same layout: bcn_frame.h) about a sampled
// data frame: addressed to its source, from the egress port `port_mac`, with the queue's offset
// and growth in 64-byte units (signed 16 bits, saturated), the frame's priority, destination and
// MSDU length. Data frames carry no wire image: the encapsulated MSDU bytes are zeros (the flow
// is named by the header's flow_id). The caller sets version and quantized feedback in `pdu`.
#pragma once
#include <algorithm>

#include "models/core/packet.h"
#include "models/protocol/cnm_frame.h"
#include "models/protocol/ethernet.h"

namespace sluice {

inline tlm::tlm_generic_payload* make_cnm(cnm_pdu pdu, const packet_header& data, uint64_t port_mac, uint64_t cpid,
                                          int64_t q_offset, int64_t q_delta, uint32_t from, uint64_t now_ps) {
  constexpr uint32_t l2_overhead = eth::header + eth::vlan_tag + eth::fcs;  // around a data frame's MSDU
  auto in_64_bytes = [](int64_t v) { return static_cast<int16_t>(std::clamp<int64_t>(v / 64, INT16_MIN, INT16_MAX)); };
  pdu.cpid = cpid;
  pdu.q_offset = in_64_bytes(q_offset);
  pdu.q_delta = in_64_bytes(q_delta);
  pdu.encapsulated_priority = data.priority;
  pdu.encapsulated_da = eth::mac_address(data.dst, 0);
  pdu.msdu_length = static_cast<uint16_t>(data.size > l2_overhead ? data.size - l2_overhead : 0);
  tlm::tlm_generic_payload* p = make_feedback_frame(frame_kind::cnm, data, from, now_ps);
  packet_header& h = header(*p);
  h.size = encode_cnm(pdu, eth::mac_address(data.src, 0), port_mac, data.priority, *h.image);
  return p;
}

}  // namespace sluice
