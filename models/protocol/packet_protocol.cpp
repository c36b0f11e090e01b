#include "models/protocol/packet_protocol.h"

namespace sluice {

void frame_receiver::b_transport(tlm::tlm_generic_payload&, sc_core::sc_time&) {
  SC_REPORT_ERROR("sluice/link_protocol", "b_transport on a link: the link protocol is non-blocking only");
}

}  // namespace sluice
