// ASM's feedback on the wire: an 802.1Qau CNM (cnm_frame.h, frame kind `cnm`, EtherType 0x22E7),
// as ECM's BCN is (bcn_frame.h), told apart by its version:
//   version 2 (QCN's CNMs carry 0, ECM's 1),
//   CPID        = the congestion point's egress port MAC << 16 | priority (as QCN's and ECM's),
//   cnmQOffset  = the 8-bit Qoff field, cnmQDelta = the 8-bit Qdelta field, sign-extended, in
//                 steps of asm.qoff_quantum and asm.qdelta_quantum,
//   quantized feedback = 0 (a QCN reaction point ignores it).
// make_cnm writes its offsets in 64-byte units; the fields are passed as step x 64 bytes, so
// each lands in its 16-bit slot unchanged.
#pragma once
#include <cstdint>

#include "models/cc/qcn/cnm_maker.h"
#include "models/protocol/bcn_frame.h"
#include "models/protocol/cnm_frame.h"

namespace sluice::asm_cnm {

constexpr uint8_t version = 2;

inline tlm::tlm_generic_payload* make(const packet_header& data, uint64_t port_mac, int cls, int8_t qoff, int8_t qdelta,
                                      uint32_t from, uint64_t now_ps) {
  cnm_pdu pdu;
  pdu.version = version;
  return make_cnm(pdu, data, port_mac, bcn::cpid(port_mac, cls), int64_t{qoff} * 64, int64_t{qdelta} * 64, from,
                  now_ps);
}

// The fields of an ASM CNM; false if the frame is not one (another scheme's CNM, or no CNM).
struct fields {
  int8_t qoff = 0, qdelta = 0;
  uint64_t cpid = 0;
};
inline bool read(const packet_header& h, fields& out) {
  cnm_pdu pdu;
  if (h.kind != frame_kind::cnm || !h.image || !decode_cnm(*h.image, pdu) || pdu.version != version) return false;
  out.qoff = static_cast<int8_t>(pdu.q_offset);
  out.qdelta = static_cast<int8_t>(pdu.q_delta);
  out.cpid = pdu.cpid;
  return true;
}

}  // namespace sluice::asm_cnm
