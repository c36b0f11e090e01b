// IEEE 802.1Qbb priority-based flow control frames: the wire image, its encoding and decoding.
//   DA 01-80-C2-00-00-01 | SA | EtherType 0x8808 | opcode 0x0101 | class-enable vector (16 bit,
//   low 8 used) | 8 x 16-bit pause time in quanta of 512 bit times | pad to 60 bytes (+4 FCS).
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#include "models/core/packet.h"
#include "models/core/units.h"
#include "models/protocol/wire_format.h"

namespace sluice {

constexpr int pfc_priorities = 8;
constexpr uint32_t pfc_frame_bytes = 64;  // minimum Ethernet frame, FCS included
constexpr uint16_t pfc_ethertype = 0x8808;
constexpr uint16_t pfc_opcode = 0x0101;

struct pfc_request {
  uint8_t class_enable = 0;                       // bit i set: timer i applies to priority i
  std::array<uint16_t, pfc_priorities> quanta{};  // 0 = resume (XON)
};

// The codec is inline: every PFC frame is encoded once and decoded once, and the calls with
// their argument moves were about a fifth of each (pfc.cpp is where both run).
namespace pfc_codec {
constexpr uint64_t da = 0x0180C2000001ull;
constexpr bool host_little_endian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
// The eight 16-bit quanta, big-endian on the wire. On a little-endian host: four lanes a 64-bit
// word, each lane's two bytes swapped at once (sixteen byte stores or loads with their shifts were
// ~40 instructions a frame).
constexpr uint64_t low_bytes = 0x00FF00FF00FF00FFull;
inline uint64_t swap_lanes(uint64_t w) { return (w & low_bytes) << 8 | (w >> 8 & low_bytes); }
static_assert(sizeof(std::array<uint16_t, pfc_priorities>) == 16, "the quanta are two 64-bit words");
// A PFC frame's bytes 0-5 (the DA) and 12-15 (EtherType, opcode) as a little-endian host loads
// them: the header is checked with two loads and two comparisons, not field by field.
constexpr uint64_t da_mask = 0xFFFFFFFFFFFFull;
constexpr uint64_t da_loaded = __builtin_bswap64(da << 16);
constexpr uint32_t type_opcode_loaded = __builtin_bswap32(uint32_t{pfc_ethertype} << 16 | pfc_opcode);
}  // namespace pfc_codec

inline void encode_pfc(const pfc_request& request, uint64_t source_mac, frame_image& out) {
  std::fill(out.begin(), out.begin() + pfc_frame_bytes, 0);
  uint8_t* b = out.data();
  wire::put48(b, 0, pfc_codec::da);
  wire::put48(b, 6, source_mac);
  wire::put16(b, 12, pfc_ethertype);
  wire::put16(b, 14, pfc_opcode);
  wire::put16(b, 16, request.class_enable);
  if constexpr (pfc_codec::host_little_endian) {
    uint64_t w[2];
    std::memcpy(w, request.quanta.data(), sizeof w);
    w[0] = pfc_codec::swap_lanes(w[0]);
    w[1] = pfc_codec::swap_lanes(w[1]);
    std::memcpy(b + 18, w, sizeof w);
  } else {
    for (int i = 0; i < pfc_priorities; ++i) wire::put16(b, 18 + 2 * i, request.quanta[i]);
  }
}

// Returns false if the bytes are not a PFC frame (wrong DA, EtherType or opcode).
inline bool decode_pfc(const frame_image& in, pfc_request& out) {
  const uint8_t* b = in.data();
  if constexpr (pfc_codec::host_little_endian) {
    uint64_t head;
    uint32_t type_opcode;
    std::memcpy(&head, b, sizeof head);
    std::memcpy(&type_opcode, b + 12, sizeof type_opcode);
    if ((head & pfc_codec::da_mask) != pfc_codec::da_loaded || type_opcode != pfc_codec::type_opcode_loaded)
      return false;
    out.class_enable = b[17];
    uint64_t w[2];
    std::memcpy(w, b + 18, sizeof w);
    w[0] = pfc_codec::swap_lanes(w[0]);
    w[1] = pfc_codec::swap_lanes(w[1]);
    std::memcpy(out.quanta.data(), w, sizeof w);
  } else {
    if (wire::get48(b, 0) != pfc_codec::da || wire::get16(b, 12) != pfc_ethertype || wire::get16(b, 14) != pfc_opcode)
      return false;
    out.class_enable = static_cast<uint8_t>(wire::get16(b, 16));
    for (int i = 0; i < pfc_priorities; ++i) out.quanta[i] = wire::get16(b, 18 + 2 * i);
  }
  return true;
}

// One quantum is 512 bit times at the rate of the link the frame arrived on.
inline uint64_t pause_ps(uint16_t quanta, data_rate link_rate) {  // inline: each class of each frame received
  return link_rate.serialization_ps(static_cast<uint64_t>(quanta) * 512 / 8);
}
inline sc_core::sc_time pause_duration(uint16_t quanta, data_rate link_rate) {
  return from_ps(pause_ps(quanta, link_rate));
}

}  // namespace sluice
