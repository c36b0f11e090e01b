#include "models/protocol/pfc_frame.h"

#include <cstring>

#include "models/protocol/wire_format.h"

namespace sluice {
namespace {
constexpr uint64_t pfc_da = 0x0180C2000001ull;

// The eight 16-bit quanta, big-endian on the wire. On a little-endian host: four lanes a 64-bit
// word, each lane's two bytes swapped at once (sixteen byte stores or loads with their shifts were
// ~40 instructions a frame; every PFC frame is encoded once and decoded once).
constexpr bool host_little_endian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
constexpr uint64_t low_bytes = 0x00FF00FF00FF00FFull;
inline uint64_t swap_lanes(uint64_t w) { return (w & low_bytes) << 8 | (w >> 8 & low_bytes); }

void put_quanta(uint8_t* b, const std::array<uint16_t, pfc_priorities>& q) {
  if constexpr (host_little_endian) {
    uint64_t w[2];
    std::memcpy(w, q.data(), sizeof w);
    w[0] = swap_lanes(w[0]);
    w[1] = swap_lanes(w[1]);
    std::memcpy(b, w, sizeof w);
  } else {
    for (int i = 0; i < pfc_priorities; ++i) wire::put16(b, 2 * i, q[i]);
  }
}

void get_quanta(const uint8_t* b, std::array<uint16_t, pfc_priorities>& q) {
  if constexpr (host_little_endian) {
    uint64_t w[2];
    std::memcpy(w, b, sizeof w);
    w[0] = swap_lanes(w[0]);
    w[1] = swap_lanes(w[1]);
    std::memcpy(q.data(), w, sizeof w);
  } else {
    for (int i = 0; i < pfc_priorities; ++i) q[i] = wire::get16(b, 2 * i);
  }
}
static_assert(sizeof(std::array<uint16_t, pfc_priorities>) == 16, "the quanta are two 64-bit words");
}  // namespace

void encode_pfc(const pfc_request& request, uint64_t source_mac, frame_image& out) {
  std::fill(out.begin(), out.begin() + pfc_frame_bytes, 0);
  uint8_t* b = out.data();
  wire::put48(b, 0, pfc_da);
  wire::put48(b, 6, source_mac);
  wire::put16(b, 12, pfc_ethertype);
  wire::put16(b, 14, pfc_opcode);
  wire::put16(b, 16, request.class_enable);
  put_quanta(b + 18, request.quanta);
}

bool decode_pfc(const frame_image& in, pfc_request& out) {
  const uint8_t* b = in.data();
  if (wire::get48(b, 0) != pfc_da || wire::get16(b, 12) != pfc_ethertype || wire::get16(b, 14) != pfc_opcode)
    return false;
  out.class_enable = static_cast<uint8_t>(wire::get16(b, 16));
  get_quanta(b + 18, out.quanta);
  return true;
}

}  // namespace sluice
