// The scheme "dcqcn" (SIGCOMM'15): RED/ECN marking at the switch queues (cp dcqcn), a CNP per
// marked flow from the receiver (np dcqcn), rate cuts and recovery at the sender (rp dcqcn).
#include "models/cc/scheme.h"

namespace sluice {
namespace {
const cc_scheme_registrar dcqcn{"dcqcn",
                                "DCQCN: ECN marking at switches, CNPs from the receiver, rate control at the sender",
                                {cc_fabric::ethernet,
                                 "it marks the IP header's ECN field and answers with RoCEv2 CNPs, and an InfiniBand "
                                 "packet carries neither (its counterpart there is ib-cca)"},
                                "dcqcn",
                                "dcqcn",
                                "dcqcn",
                                {{frame_kind::cnp, "cnp", "CNP"}}};
}  // namespace
}  // namespace sluice
