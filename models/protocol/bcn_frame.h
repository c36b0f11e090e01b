// ECM's BCN (backward congestion notification) feedback, carried in the 802.1Qau CNM layout
// (cnm_frame.h) rather than a frame kind of its own: frame kind `cnm`, EtherType 0x22E7, with
//   version 1 (ECM; QCN's CNMs carry 0),
//   CPID        = the congestion point's egress port MAC << 16 | priority (as QCN's),
//   cnmQOffset  = Q - Qeq and cnmQDelta = Q - Qold, signed, in units of 64 bytes (as QCN's),
//   quantized feedback = |Fb| quantized like QCN's for negative feedback, 0 for positive
//                        (a QCN reaction point ignores qFb = 0, so positive BCN is harmless to it).
// The ECM reaction point computes Fb = -(cnmQOffset + w cnmQDelta) x 64 bytes itself (the two
// components travel separately: ECM's "multi-dimensional" feedback). Positive Fb: room.
//
// The CPID tag on data frames (frame_fields::cp_tag) is a 32-bit image of the 64-bit CPID:
// bit 31 set (0 means untagged), then 15 bits of the switch's node id, 12 of the port, 4 of the
// priority; unique in fabrics of up to 32768 nodes and 4096 ports per switch.
#pragma once
#include <cstdint>

#include "models/protocol/cnm_frame.h"

namespace sluice::bcn {

constexpr uint8_t version = 1;

inline uint64_t cpid(uint64_t port_mac, int cls) { return port_mac << 16 | static_cast<uint64_t>(cls & 0xFFFF); }
inline uint32_t tag_of(uint64_t cpid) {
  const uint64_t node = cpid >> 32 & 0x7FFF, port = cpid >> 16 & 0xFFF, cls = cpid & 0xF;
  return static_cast<uint32_t>(0x80000000u | node << 16 | port << 4 | cls);
}
// Fb in bytes from a decoded BCN with weight w: -(Qoff + w Qdelta), the fields in 64-byte units.
inline double feedback_bytes(const cnm_pdu& p, double w) {
  return -64.0 * (static_cast<double>(p.q_offset) + w * static_cast<double>(p.q_delta));
}

}  // namespace sluice::bcn
