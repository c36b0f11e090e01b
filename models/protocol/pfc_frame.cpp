#include "models/protocol/pfc_frame.h"

namespace sluice {
namespace {
constexpr uint8_t pfc_da[6] = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};

void put16(std::array<uint8_t, 64>& b, int at, uint16_t v) {
  b[at] = static_cast<uint8_t>(v >> 8);
  b[at + 1] = static_cast<uint8_t>(v);
}
uint16_t get16(const std::array<uint8_t, 64>& b, int at) { return static_cast<uint16_t>(b[at] << 8 | b[at + 1]); }
}  // namespace

void encode_pfc(const pfc_request& request, uint64_t source_mac, std::array<uint8_t, 64>& out) {
  out.fill(0);
  for (int i = 0; i < 6; ++i) out[i] = pfc_da[i];
  for (int i = 0; i < 6; ++i) out[6 + i] = static_cast<uint8_t>(source_mac >> (8 * (5 - i)));
  put16(out, 12, pfc_ethertype);
  put16(out, 14, pfc_opcode);
  put16(out, 16, request.class_enable);
  for (int i = 0; i < num_priorities; ++i) put16(out, 18 + 2 * i, request.quanta[i]);
}

bool decode_pfc(const std::array<uint8_t, 64>& in, pfc_request& out) {
  for (int i = 0; i < 6; ++i)
    if (in[i] != pfc_da[i]) return false;
  if (get16(in, 12) != pfc_ethertype || get16(in, 14) != pfc_opcode) return false;
  out.class_enable = static_cast<uint8_t>(get16(in, 16));
  for (int i = 0; i < num_priorities; ++i) out.quanta[i] = get16(in, 18 + 2 * i);
  return true;
}

}  // namespace sluice
