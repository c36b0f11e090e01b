// Direct hops: where one of our MACs and one of our link channels are bound to each other (seen
// at the end of elaboration by a dynamic_cast of the interface a socket is bound to), each calls
// the other without TLM's phase and `sc_time` delay and without the virtual call through the
// socket: the MAC's first bit is link_channel::start, the link's last bit mac_port::arrive.
//
// It is the same transaction. Both ends run on the models' clock, so the delays they would
// annotate are fixed by it: the first bit's delay is now_ps() - the kernel's time, END_REQ
// comes back as that + the serialization, and the last bit's delay is ahead(); the phases are
// always BEGIN_REQ then END_REQ (TLM_UPDATED), and the receiver answers TLM_COMPLETED. Of the
// payload's TLM fields, a sink finds TLM_OK_RESPONSE on either path: the socket path's receiver
// sets it, and on the direct hop it is there already (the pool makes payloads so and restores it
// once any crossed a socket: packet_pool::socket_crossed), so the receiver does not write the
// payload's first line; a direction that takes a foreign transmitter's frame delivers through its
// socket from then on. The transmitter's response status and data length are for a TLM target,
// which our link and receiver are not: only the socket path sets them. A foreign model on either end (a
// third-party target, a wrapper, RTL) is not our type: the socket and its standard path stay,
// with every annotated time (tests/models/direct_hops_test.cpp checks both paths give the same
// times and fields, and a fabric run the same outputs with direct hops off).
#pragma once

namespace sluice {

// Read at the end of elaboration. Tests turn it off, before elaborating, to run every hop
// through the sockets.
inline bool direct_hops = true;

}  // namespace sluice
