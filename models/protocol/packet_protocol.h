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

#include <tlm>

#include "models/core/packet.h"

namespace sluice {

struct packet_protocol_types {
  using tlm_payload_type = tlm::tlm_generic_payload;
  using tlm_phase_type = tlm::tlm_phase;
};

template <typename MODULE>
using frame_out_socket = tlm_utils::simple_initiator_socket<MODULE, 32, packet_protocol_types>;
// A frame's receiving end (a link channel's input, a MAC's receiver) implements the forward
// path itself and binds its target socket to itself, the plain TLM-2.0 way: a transmitter's
// nb_transport_fw is then one virtual call into the receiver, with no socket object between
// them to touch (at 1024 hosts each object a frame touches is likely a cache miss). The link
// protocol is non-blocking only: b_transport is a model error, and there is no DMI or debug
// access to a wire.
class frame_receiver : public tlm::tlm_fw_transport_if<packet_protocol_types> {
 public:
  void b_transport(tlm::tlm_generic_payload& frame, sc_core::sc_time& delay) final;
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) final { return false; }
  unsigned int transport_dbg(tlm::tlm_generic_payload&) final { return 0; }
};
// Bound to its module (a frame_receiver) in the module's constructor: `in.bind(*this)`.
using frame_in_socket = tlm::tlm_target_socket<32, packet_protocol_types>;

}  // namespace sluice
