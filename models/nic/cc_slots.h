// The NIC's congestion-control slots. A notification point (NP) sits at the receiver and sees
// every data frame that arrives; it may answer with frames of its own (CNP, ACK) through the
// NIC's control path. A reaction point (RP) sits at the sender, one per flow: it sees the
// feedback frames addressed to its flow and every frame the flow sends, and drives the flow's
// rate limiter. Algorithms (QCN, DCQCN, TIMELY, PCN, IB CCA) implement these.
#pragma once
#include <cstdint>

#include "models/core/packet.h"
#include "models/core/units.h"

namespace sluice {

class ack_model;

class notification_point_if {
 public:
  virtual ~notification_point_if() = default;
  // A data frame of one of this NIC's incoming flows arrived (after it was counted).
  virtual void on_data(const packet_header& h, uint64_t now_ps) = 0;
  // Defaults derived from other parameters (a profile's), once the overrides are final and
  // before check(); a parameter the user set keeps its value.
  virtual void derive_defaults() {}
  // Cross-parameter checks, once the overrides are final (throws config_error, one line).
  virtual void check() const {}
};

class reaction_point_if {
 public:
  virtual ~reaction_point_if() = default;
  // A feedback frame (CNM, CNP, ACK) about this flow arrived.
  virtual void on_feedback(const packet_header& h, uint64_t now_ps) = 0;
  // The flow started a frame of `bytes` wire bytes (byte counters, RTT stamps).
  virtual void on_send(const packet_header& h, uint64_t now_ps) = 0;
  // Just before on_send: the reaction point may mark the data frame (ECM's CPID tag, a probe bit).
  virtual void tag(packet_header&) {}
  // The rate this reaction point is heading for (QCN's and DCQCN's target rate), for the
  // flow_rate.csv series; 0: the algorithm has none.
  virtual data_rate target_rate() const { return data_rate{0}; }
};

// Where an NP (or anything else in the NIC) hands a frame it made: queued ahead of data on the
// frame's class, subject to that class's flow-control gate.
class control_sender_if {
 public:
  virtual ~control_sender_if() = default;
  virtual void send_control(tlm::tlm_generic_payload* frame) = 0;
  virtual uint32_t node_id() const = 0;
  // The NIC's transport ACK model (ack_model.h), for a scheme that needs ACKs to switch it on.
  virtual ack_model* acks() { return nullptr; }
};

}  // namespace sluice
