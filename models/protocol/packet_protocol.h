// The link protocol: Sluice's own TLM protocol type for frames on a wire.
//
// Why not the base protocol: it allows one outstanding request per socket, but a link has many
// frames in flight. Our protocol uses the base protocol's phases with these rules:
//   transmitter -> link : nb_transport_fw(BEGIN_REQ) when the first bit goes on the wire; the
//                         link answers TLM_UPDATED / END_REQ with delay = serialization time,
//                         i.e. when the transmitter may start its next frame.
//   link -> receiver    : nb_transport_fw(BEGIN_REQ) when the last bit arrives (store and
//                         forward); the receiver takes ownership and answers TLM_COMPLETED.
// There is no response phase: frames are posted. Backpressure is explicit (PFC frames, credits).
// A distinct protocol-types class keeps these sockets from binding to base-protocol sockets.
#pragma once
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/passthrough_target_socket.h>

#include <tlm>

#include "models/core/packet.h"

namespace sluice {

struct packet_protocol_types {
  using tlm_payload_type = tlm::tlm_generic_payload;
  using tlm_phase_type = tlm::tlm_phase;
};

template <typename MODULE>
using frame_out_socket = tlm_utils::simple_initiator_socket<MODULE, 32, packet_protocol_types>;
// A passthrough target socket: nb_transport_fw goes straight to the registered method. A
// simple_target_socket would also spawn, per socket, a b2nb thread with its own stack, a payload
// event queue and events (to adapt b_transport, which this protocol never uses): ~9 000 threads
// at 1024 hosts, most of the fabric's memory before the first packet.
template <typename MODULE>
using frame_in_socket = tlm_utils::passthrough_target_socket<MODULE, 32, packet_protocol_types>;

}  // namespace sluice
