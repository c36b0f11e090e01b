#include "models/protocol/cnm_frame.h"

#include <algorithm>

#include "models/protocol/ethernet.h"

namespace sluice {

uint32_t encode_cnm(const cnm_pdu& pdu, uint64_t da, uint64_t sa, uint8_t pcp, frame_image& out) {
  uint8_t* b = out.data();
  std::size_t at = eth::put_header(b, da, sa, pcp, cnm_ethertype);
  // 802.1Qau: the first 64 bytes of the sampled MSDU, or all of it if shorter, so the decoder
  // can tell how many are carried from the encapsulated MSDU length alone.
  const std::size_t n = std::min<std::size_t>(pdu.msdu_length, cnm_max_msdu);
  const uint32_t size = eth::frame_bytes(static_cast<uint32_t>(at + 24 + n + eth::fcs));
  std::fill(b + at, b + size, 0);
  wire::put16(b, at, static_cast<uint16_t>((pdu.version & 0xF) << 12 | (pdu.quantized_feedback & 0x3F)));
  wire::put64(b, at + 2, pdu.cpid);
  wire::put16(b, at + 10, static_cast<uint16_t>(pdu.q_offset));
  wire::put16(b, at + 12, static_cast<uint16_t>(pdu.q_delta));
  wire::put16(b, at + 14, pdu.encapsulated_priority);
  wire::put48(b, at + 16, pdu.encapsulated_da);
  wire::put16(b, at + 22, pdu.msdu_length);
  std::copy(pdu.msdu.begin(), pdu.msdu.begin() + static_cast<std::ptrdiff_t>(n), b + at + 24);
  return size;
}

bool decode_cnm(const frame_image& in, cnm_pdu& out) {
  const uint8_t* b = in.data();
  if (wire::get16(b, 12) != eth::tpid_8021q || wire::get16(b, 16) != cnm_ethertype) return false;
  const std::size_t at = 18;
  uint16_t first = wire::get16(b, at);
  out.version = static_cast<uint8_t>(first >> 12);
  out.quantized_feedback = static_cast<uint8_t>(first & 0x3F);
  out.cpid = wire::get64(b, at + 2);
  out.q_offset = static_cast<int16_t>(wire::get16(b, at + 10));
  out.q_delta = static_cast<int16_t>(wire::get16(b, at + 12));
  out.encapsulated_priority = wire::get16(b, at + 14);
  out.encapsulated_da = wire::get48(b, at + 16);
  out.msdu_length = wire::get16(b, at + 22);
  out.msdu_bytes = static_cast<uint8_t>(std::min<std::size_t>(out.msdu_length, cnm_max_msdu));
  std::copy(b + at + 24, b + at + 24 + out.msdu_bytes, out.msdu.begin());
  return true;
}

}  // namespace sluice
