// IEEE 802.1Qbb priority-based flow control frames: the wire image and its decoding.
//   DA 01-80-C2-00-00-01 | SA | EtherType 0x8808 | opcode 0x0101 | class-enable vector (16 bit,
//   low 8 used) | 8 x 16-bit pause time in quanta of 512 bit times | pad to 60 bytes (+4 FCS).
#pragma once
#include <array>
#include <cstdint>

#include "models/core/packet.h"
#include "models/core/units.h"

namespace sluice {

constexpr int pfc_priorities = 8;
constexpr uint32_t pfc_frame_bytes = 64;  // minimum Ethernet frame, FCS included
constexpr uint16_t pfc_ethertype = 0x8808;
constexpr uint16_t pfc_opcode = 0x0101;

struct pfc_request {
  uint8_t class_enable = 0;                       // bit i set: timer i applies to priority i
  std::array<uint16_t, pfc_priorities> quanta{};  // 0 = resume (XON)
};

void encode_pfc(const pfc_request& request, uint64_t source_mac, frame_image& out);
// Returns false if the bytes are not a PFC frame (wrong DA, EtherType or opcode).
bool decode_pfc(const frame_image& in, pfc_request& out);

// One quantum is 512 bit times at the rate of the link the frame arrived on.
inline uint64_t pause_ps(uint16_t quanta, data_rate link_rate) {  // inline: each class of each frame received
  return link_rate.serialization_ps(static_cast<uint64_t>(quanta) * 512 / 8);
}
inline sc_core::sc_time pause_duration(uint16_t quanta, data_rate link_rate) {
  return from_ps(pause_ps(quanta, link_rate));
}

}  // namespace sluice
