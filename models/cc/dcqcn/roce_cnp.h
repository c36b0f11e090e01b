// The RoCEv2 CNP maker shared by the notification points that answer with CNPs (DCQCN, PCN).
#pragma once
#include <cstdint>

#include "models/core/packet.h"

namespace sluice {

// A RoCEv2 CNP (82 B, real wire image) about the data frame `data`, from node `from` back to the
// frame's source, on its class; destination QP = the flow id. The IPv4 ECN bits carry `ecn` and
// the first reserved word `rate_mbps` (both 0 for DCQCN; PCN's congestion flag and RecRate).
tlm::tlm_generic_payload* make_roce_cnp(const packet_header& data, uint32_t from, uint64_t now_ps, uint8_t ecn = 0,
                                        uint32_t rate_mbps = 0);

}  // namespace sluice
