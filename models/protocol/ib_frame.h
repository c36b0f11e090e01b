// InfiniBand framing: the local route header (LRH) and base transport header (BTH) of data
// packets, and the 6-byte link-level flow-control (credit) packet.
//   LRH (8 B): VL(4) LVer(4) | SL(4) rsvd(2) LNH(2) | DLID(16) | rsvd(5) PktLen(11, 4-byte words) | SLID(16)
//   BTH (12 B): opcode(8) | SE M Pad(2) TVer(4) | P_Key(16) | FECN BECN rsvd(6) | DestQP(24) |
//               AckReq rsvd(7) | PSN(24)
//   TCD on IB (docs/models/tcd.md): CE is FECN (BECN in the CNP back); UE is the first reserved
//   bit after BECN (BTH byte 4, mask 0x20), set only when FECN is not.
//   Flow-control packet (6 B): Op(4) FCTBS(12) | VL(4) FCCL(12) | LPCRC(16)
#pragma once
#include <cstdint>

#include "models/core/packet.h"

namespace sluice::ib {

constexpr uint32_t lrh = 8, bth = 12, icrc = 4, vcrc = 2;
constexpr uint32_t data_overhead = lrh + bth + icrc + vcrc;  // 26 B per data packet
constexpr uint32_t credit_packet_bytes = 6;
constexpr uint32_t credit_block = 64;  // bytes per flow-control credit
constexpr int max_vls = 16;
// A congestion notification packet (BTH opcode 0x80): LRH + BTH + ICRC + VCRC, no payload modelled.
constexpr uint8_t opcode_cnp = 0x80;
constexpr uint32_t cnp_bytes = data_overhead;
// The model's LIDs: node id + 1 (LID 0 is reserved).
inline uint16_t lid_of(uint32_t node_id) { return static_cast<uint16_t>(node_id + 1); }

struct route_headers {
  uint8_t vl = 0, sl = 0;
  uint16_t dlid = 0, slid = 0;
  uint16_t packet_words = 0;  // LRH PktLen: LRH to VCRC exclusive, in 4-byte words
  uint8_t opcode = 0x04;
  bool fecn = false, becn = false;
  bool ue = false;  // TCD's undetermined code point (a reserved BTH bit)
  uint32_t dest_qp = 0, psn = 0;
};
std::size_t encode(const route_headers& h, uint8_t* out);  // returns 20 (LRH + BTH)
void decode(const uint8_t* in, route_headers& out);

struct credit_packet {
  uint8_t op = 0;      // 0 = normal, 1 = init
  uint16_t fctbs = 0;  // flow-control total blocks sent, mod 4096
  uint8_t vl = 0;
  uint16_t fccl = 0;  // flow-control credit limit, mod 4096
};
void encode_credit(const credit_packet& c, frame_image& out);
bool decode_credit(const frame_image& in, credit_packet& out);

// 12-bit credit arithmetic of the specification: a packet of `blocks` may be sent iff
// (FCCL - (FCTBS + blocks)) mod 4096 <= 2048.
inline bool credit_allows(uint16_t fccl, uint16_t fctbs, uint32_t blocks) {
  return ((fccl - (fctbs + blocks)) & 0xFFF) <= 2048;
}

}  // namespace sluice::ib
