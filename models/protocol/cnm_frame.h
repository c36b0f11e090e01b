// IEEE 802.1Qau congestion notification message (CNM): sent by a congestion point to the source
// of a sampled frame.
//   DA = the sampled frame's SA | SA = CP port | 802.1Q tag | EtherType 0x22E7 | PDU:
//   version(4 bit) reserved(6) quantized feedback(6) | CPID(8 bytes) | cnmQOffset(2, signed) |
//   cnmQDelta(2, signed) | encapsulated priority(2) | encapsulated DA(6) | encapsulated MSDU
//   length(2) | encapsulated MSDU (0..64 bytes of the sampled frame) | pad | FCS.
#pragma once
#include <array>
#include <cstdint>

#include "models/core/packet.h"

namespace sluice {

constexpr uint16_t cnm_ethertype = 0x22E7;
constexpr std::size_t cnm_max_msdu = 64;

struct cnm_pdu {
  uint8_t version = 0;
  uint8_t quantized_feedback = 0;  // |Fb| quantized to 6 bits
  uint64_t cpid = 0;               // congestion point identifier
  int16_t q_offset = 0, q_delta = 0;
  uint16_t encapsulated_priority = 0;
  uint64_t encapsulated_da = 0;
  uint16_t msdu_length = 0;  // length of the sampled frame's MSDU
  uint8_t msdu_bytes = 0;    // decoded: how many of its first bytes are carried, min(msdu_length, 64)
  std::array<uint8_t, cnm_max_msdu> msdu{};
};

// Writes the CNM into `out` and returns its size on the wire (FCS included, >= 64).
uint32_t encode_cnm(const cnm_pdu& pdu, uint64_t da, uint64_t sa, uint8_t pcp, frame_image& out);
// Returns false if the image is not a CNM.
bool decode_cnm(const frame_image& in, cnm_pdu& out);

}  // namespace sluice
