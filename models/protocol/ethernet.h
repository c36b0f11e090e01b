// Ethernet framing shared by every CEE frame kind: sizes, addresses, the 802.1Q tag.
#pragma once
#include <algorithm>
#include <cstdint>

#include "models/protocol/wire_format.h"

namespace sluice::eth {

constexpr uint32_t min_frame = 64;  // bytes on the wire, FCS included
constexpr uint32_t header = 14;     // DA, SA, EtherType
constexpr uint32_t vlan_tag = 4;    // 802.1Q: TPID 0x8100, PCP(3) DEI(1) VID(12)
constexpr uint32_t fcs = 4;
constexpr uint16_t tpid_8021q = 0x8100;
constexpr uint16_t ethertype_ipv4 = 0x0800;

// Bytes on the wire of a frame whose Ethernet header and FCS add to `l2_bytes` of content:
// never below the 64-byte minimum (shorter frames are padded).
inline uint32_t frame_bytes(uint32_t bytes) { return std::max(bytes, min_frame); }

// Locally administered unicast addresses: 02:NN:NN:NN:PP:PP with a 24-bit node id and a 16-bit
// port index, so no two ports of a fabric (up to 16 M nodes, 65 536 ports each) share one.
inline uint64_t mac_address(uint32_t node_id, uint32_t port) {
  return 0x02ull << 40 | static_cast<uint64_t>(node_id & 0xFFFFFF) << 16 | (port & 0xFFFF);
}

// Writes DA, SA and an 802.1Q tag with `pcp`, then `ethertype`; returns the offset after it (18).
inline std::size_t put_header(uint8_t* b, uint64_t da, uint64_t sa, uint8_t pcp, uint16_t ethertype) {
  wire::put48(b, 0, da);
  wire::put48(b, 6, sa);
  wire::put16(b, 12, tpid_8021q);
  wire::put16(b, 14, static_cast<uint16_t>((pcp & 7) << 13));
  wire::put16(b, 16, ethertype);
  return 18;
}

}  // namespace sluice::eth
