// RoCEv2 framing: data frames, congestion notification packets (CNP) and acknowledgements.
//   Ethernet + 802.1Q (PCP) | IPv4 (DSCP, ECN, addresses) | UDP (dst port 4791) | BTH (12 B:
//   opcode, P_Key, destination QP, PSN) | [AETH 4 B for ACKs | 16 reserved bytes for CNPs] |
//   payload | ICRC (4) | FCS (4).
// The model carries data frames as headers (packet_header) and sizes them from these constants;
// encode_roce writes the full header image for captures and checks.
#pragma once
#include <cstdint>

#include "models/core/packet.h"
#include "models/protocol/ethernet.h"

namespace sluice::roce {

constexpr uint32_t ipv4 = 20, udp = 8, bth = 12, aeth = 4, icrc = 4, cnp_reserved = 16;
constexpr uint16_t udp_port = 4791;
constexpr uint8_t opcode_send_only = 0x04;    // RC SEND only
constexpr uint8_t opcode_acknowledge = 0x11;  // RC ACKNOWLEDGE
constexpr uint8_t opcode_cnp = 0x81;          // RoCEv2 CNP
// Per-frame overhead of a data frame: Ethernet + 802.1Q + IPv4 + UDP + BTH + ICRC + FCS = 66 B.
constexpr uint32_t data_overhead = eth::header + eth::vlan_tag + ipv4 + udp + bth + icrc + eth::fcs;
constexpr uint32_t cnp_bytes = data_overhead + cnp_reserved;  // 82 B
constexpr uint32_t ack_bytes = data_overhead + aeth;          // 70 B

// The transport fields of one frame (what a capture shows).
struct headers {
  uint64_t da = 0, sa = 0;
  uint8_t pcp = 0, ecn = 0, dscp = 0;
  uint32_t src_ip = 0, dst_ip = 0;
  uint16_t udp_src = 0;
  uint8_t opcode = opcode_send_only;
  bool fecn = false, becn = false;  // BTH bits (IB semantics; RoCEv2 uses ECN instead)
  uint32_t dest_qp = 0, psn = 0;
  uint32_t payload = 0;
  // CNP only: the first 4 of the 16 reserved bytes. PCN (NSDI'20, Fig. 9) puts the receiving rate
  // there, in units of 1 Mb/s; the other 12 stay zero.
  uint32_t cnp_rate_mbps = 0;
};

// IPv4 address of a node: 10.N.N.N from its 24-bit id.
inline uint32_t node_ip(uint32_t node_id) { return 10u << 24 | (node_id & 0xFFFFFF); }

// Writes Ethernet, IPv4, UDP and BTH into `out` (66 - 8 bytes of trailers), and for a CNP its 16
// reserved bytes; returns the header length (58; a CNP 74). IPv4 total length and UDP length
// count `payload` and the ICRC.
std::size_t encode(const headers& h, uint8_t* out);
// Returns false unless the image holds IPv4/UDP to port 4791 with an IPv4 length that covers its
// headers.
bool decode(const uint8_t* in, headers& out);

// The fields of a frame node `from` sends back to the source of data frame `data` (a CNP or an
// ACK): addresses reversed, the data's priority, its flow id as the destination QP.
inline headers reply_to(const packet_header& data, uint32_t from, uint8_t opcode) {
  headers w;
  w.da = eth::mac_address(data.src, 0);
  w.sa = eth::mac_address(from, 0);
  w.pcp = data.priority;
  w.src_ip = node_ip(from);
  w.dst_ip = node_ip(data.src);
  w.opcode = opcode;
  w.dest_qp = data.flow_id;  // the model's QP number is the flow id
  return w;
}

}  // namespace sluice::roce
