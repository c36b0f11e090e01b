// The NIC's transport ACK model: a RoCE RC receiver acknowledges the data it receives. Off by
// default (<nic>.ack.enable); a scheme that times ACKs (TIMELY) or a profile that models a
// reference simulator's transport (the hpcc-sim NP profiles of DCQCN and TIMELY) switches it
// on. ACK frames are real 70 B RoCEv2 ACKNOWLEDGE frames by default (<nic>.ack.size sets the
// wire size), on the data frame's class, the fabric's highest class or another
// (<nic>.ack.priority), queued through the NIC's control path ahead of data and subject to that
// class's pause. Coalescing: every <nic>.ack.every_frames frames, or each <nic>.ack.every_bytes
// of a flow's byte offset, and at a finite flow's end (ack_coalescing.h); with <nic>.ack.timer,
// a frame left unacknowledged that long is acknowledged then. An ACK's header `seq` is the
// acknowledged byte offset (its image's PSN the low 24 bits), by which a sender's reaction point
// can find its own send time for that frame. Counted in <nic>.ack_sent and <nic>.ack.timer_acks,
// and in the summary's totals.ack_frames (docs/models/nic.md).
#pragma once
#include <cstdint>
#include <vector>

#include "models/cc/ack_coalescing.h"
#include "models/cc/control_sender.h"
#include "models/cc/flow.h"
#include "models/cc/notification_point.h"
#include "models/core/event_queue.h"
#include "models/core/params.h"
#include "models/core/ring.h"

namespace sluice {

class ack_model : public timed_client {
 public:
  param<bool> enable;
  param<uint64_t> every_frames;
  param<byte_count> every_bytes;
  param<sc_core::sc_time> timer;
  param<byte_count> size;
  choice_param priority;  // "data": the data frame's class; "high": the fabric's highest; else a class number

  ack_model(const sc_core::sc_object& nic, control_sender_if& sender, const flow_table& flows);
  // Parameters are final: the ACK class, checked against the fabric's `classes`.
  void start(int classes);
  // A data frame of one of this NIC's incoming flows arrived (after it was counted).
  void on_data(const packet_header& h, uint64_t now_ps) {
    if (enable()) receive(h, now_ps);
  }
  void on_timer() override;
  uint64_t timer_acks() const { return timer_acks_; }

 private:
  void receive(const packet_header& h, uint64_t now_ps);
  void send(const packet_header& data, uint64_t now_ps);
  struct pending {
    uint64_t due_ps;
    uint32_t flow;
  };
  control_sender_if& sender_;
  const flow_table& flows_;
  ack_coalescer coalescer_;
  std::vector<packet_header> last_;       // by flow id: the last data frame received (timer ACKs)
  std::vector<uint64_t> oldest_unacked_;  // by flow id: arrival of the oldest unacknowledged frame
  ring<pending> timers_;                  // in due order (one timer length for all)
  uint64_t timer_acks_ = 0;
  int class_ = -1;  // -1: the data frame's
};

}  // namespace sluice
