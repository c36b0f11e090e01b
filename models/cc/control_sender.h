// Where a notification point (or anything else in the NIC) hands a frame it made: queued ahead
// of data on the frame's class, subject to that class's flow-control gate.
#pragma once
#include <cstdint>
#include <tlm>

namespace sluice {

class ack_model;

class control_sender_if {
 public:
  virtual ~control_sender_if() = default;
  virtual void send_control(tlm::tlm_generic_payload* frame) = 0;
  virtual uint32_t node_id() const = 0;
  // The NIC's transport ACK model (ack_model.h), for a scheme that needs ACKs to switch it on.
  virtual ack_model* acks() { return nullptr; }
};

}  // namespace sluice
