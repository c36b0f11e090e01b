// The scheme "pcn" (NSDI'20): NP-ECN at the switch queues, CNPs with the receiving rate from the
// receiver, the rate adjustment at the sender.
#include "models/cc/scheme.h"

namespace sluice {
namespace {
const cc_scheme_registrar pcn{"pcn",
                              "PCN: NP-ECN at switches, CNPs with the receiving rate, RecRate-based sender",
                              {cc_fabric::ethernet,
                               "it marks the IP header's ECN field and its CNPs (RoCEv2) carry the receiving rate, and "
                               "an InfiniBand packet carries neither"},
                              "pcn",
                              "pcn",
                              "pcn",
                              {{frame_kind::cnp, "cnp", "CNP"}}};
}  // namespace
}  // namespace sluice
