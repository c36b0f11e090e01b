#include "models/protocol/roce_frame.h"

namespace sluice::roce {

std::size_t encode(const headers& h, uint8_t* b) {
  std::size_t at = eth::put_header(b, h.da, h.sa, h.pcp, eth::ethertype_ipv4);
  const uint32_t extra = h.opcode == opcode_cnp ? cnp_reserved : h.opcode == opcode_acknowledge ? aeth : 0;
  const uint16_t ip_len = static_cast<uint16_t>(ipv4 + udp + bth + extra + h.payload + icrc);
  wire::put8(b, at, 0x45);  // IPv4, 5-word header
  wire::put8(b, at + 1, static_cast<uint8_t>(h.dscp << 2 | (h.ecn & 3)));
  wire::put16(b, at + 2, ip_len);
  wire::put32(b, at + 4, 0x4000);  // identification 0, don't fragment
  wire::put8(b, at + 8, 64);       // TTL
  wire::put8(b, at + 9, 17);       // UDP
  wire::put16(b, at + 10, 0);      // checksum not modelled
  wire::put32(b, at + 12, h.src_ip);
  wire::put32(b, at + 16, h.dst_ip);
  at += ipv4;
  wire::put16(b, at, h.udp_src);
  wire::put16(b, at + 2, udp_port);
  wire::put16(b, at + 4, static_cast<uint16_t>(ip_len - ipv4));
  wire::put16(b, at + 6, 0);
  at += udp;
  wire::put8(b, at, h.opcode);
  wire::put8(b, at + 1, 0);
  wire::put16(b, at + 2, 0xFFFF);  // default P_Key
  wire::put8(b, at + 4, static_cast<uint8_t>((h.fecn ? 0x80 : 0) | (h.becn ? 0x40 : 0)));
  wire::put24(b, at + 5, h.dest_qp);
  wire::put32(b, at + 8, h.psn & 0xFFFFFF);
  if (h.opcode == opcode_cnp) {
    wire::put32(b, at + bth, h.cnp_rate_mbps);
    for (uint32_t i = 4; i < cnp_reserved; ++i) wire::put8(b, at + bth + i, 0);
    return at + bth + cnp_reserved;
  }
  return at + bth;
}

bool decode(const uint8_t* b, headers& h) {
  if (wire::get16(b, 12) != eth::tpid_8021q || wire::get16(b, 16) != eth::ethertype_ipv4) return false;
  std::size_t at = 18;
  if (b[at] != 0x45 || b[at + 9] != 17) return false;
  h.da = wire::get48(b, 0);
  h.sa = wire::get48(b, 6);
  h.pcp = static_cast<uint8_t>(wire::get16(b, 14) >> 13);
  h.dscp = static_cast<uint8_t>(b[at + 1] >> 2);
  h.ecn = b[at + 1] & 3;
  uint16_t ip_len = wire::get16(b, at + 2);
  h.src_ip = wire::get32(b, at + 12);
  h.dst_ip = wire::get32(b, at + 16);
  at += ipv4;
  if (wire::get16(b, at + 2) != udp_port) return false;
  h.udp_src = wire::get16(b, at);
  at += udp;
  h.opcode = b[at];
  h.fecn = b[at + 4] & 0x80;
  h.becn = b[at + 4] & 0x40;
  h.dest_qp = wire::get24(b, at + 5);
  h.psn = wire::get32(b, at + 8) & 0xFFFFFF;
  const uint32_t extra = h.opcode == opcode_cnp ? cnp_reserved : h.opcode == opcode_acknowledge ? aeth : 0;
  // An IPv4 length shorter than the headers it declares is not a frame (the payload would wrap).
  if (ip_len < ipv4 + udp + bth + extra + icrc) return false;
  h.cnp_rate_mbps = h.opcode == opcode_cnp ? wire::get32(b, at + bth) : 0;
  h.payload = ip_len - (ipv4 + udp + bth + extra + icrc);
  return true;
}

}  // namespace sluice::roce
