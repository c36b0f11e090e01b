#include "models/protocol/pfc_frame.h"

#include "models/protocol/wire_format.h"

namespace sluice {
namespace {
constexpr uint64_t pfc_da = 0x0180C2000001ull;
}

void encode_pfc(const pfc_request& request, uint64_t source_mac, frame_image& out) {
  std::fill(out.begin(), out.begin() + pfc_frame_bytes, 0);
  uint8_t* b = out.data();
  wire::put48(b, 0, pfc_da);
  wire::put48(b, 6, source_mac);
  wire::put16(b, 12, pfc_ethertype);
  wire::put16(b, 14, pfc_opcode);
  wire::put16(b, 16, request.class_enable);
#pragma GCC unroll 8  // eight fixed stores, not a loop of eight rounds (every PFC frame)
  for (int i = 0; i < pfc_priorities; ++i) wire::put16(b, 18 + 2 * i, request.quanta[i]);
}

bool decode_pfc(const frame_image& in, pfc_request& out) {
  const uint8_t* b = in.data();
  if (wire::get48(b, 0) != pfc_da || wire::get16(b, 12) != pfc_ethertype || wire::get16(b, 14) != pfc_opcode)
    return false;
  out.class_enable = static_cast<uint8_t>(wire::get16(b, 16));
#pragma GCC unroll 8
  for (int i = 0; i < pfc_priorities; ++i) out.quanta[i] = wire::get16(b, 18 + 2 * i);
  return true;
}

}  // namespace sluice
