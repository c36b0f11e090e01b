// The scheme "timely" (SIGCOMM'15): no switch support; the receiver's ACKs give the sender its
// RTT, from which it sets its rate.
#include "models/cc/scheme.h"

namespace sluice {
namespace {
const cc_scheme_registrar timely{
    "timely",
    "TIMELY: RTT from the receiver's ACKs drives the sender's rate",
    {cc_fabric::ethernet,
     "its RTT samples come from RoCEv2 ACK frames, which the InfiniBand NIC of this model does not send"},
    "none",
    "timely",
    "timely",
    {{frame_kind::ack, "ack", "ACK"}}};
}  // namespace
}  // namespace sluice
