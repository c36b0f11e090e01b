// A MAC port: the transmitter and receiver ends of one link attachment, shared by NICs and
// switches. It owns 802.1Qbb pause reception (per-priority pause state and paused-time
// accounting), a control-frame queue that goes ahead of data, and the transmit loop.
// What to send next is asked of a frame_source_if; what arrives goes to a frame_sink_if.
#pragma once
#include <array>
#include <limits>
#include <systemc>

#include "models/core/event_queue.h"
#include "models/core/params.h"
#include "models/core/ring.h"
#include "models/protocol/packet_protocol.h"
#include "models/protocol/pfc_frame.h"

namespace sluice {

class link;
class mac_port;

constexpr uint64_t never_ps = std::numeric_limits<uint64_t>::max();

// The block behind a transmitter (egress scheduler, NIC flow scheduler).
class frame_source_if {
 public:
  virtual ~frame_source_if() = default;
  // Returns the next frame to transmit (ownership passes to the port), or nullptr and sets
  // `retry_ps` to the earliest time a frame may become sendable (never_ps if only new input can
  // change that; the source then calls mac_port::kick()).
  virtual tlm::tlm_generic_payload* next_frame(const mac_port& port, uint64_t now_ps, uint64_t& retry_ps) = 0;
  // After a frame starts: the earliest time the source could have another (never_ps if none
  // without new input). Lets the port sleep through a paced gap in one wake-up instead of two.
  virtual uint64_t next_ready_ps(const mac_port& port, uint64_t now_ps) const = 0;
};

// The block behind a receiver (switch ingress, NIC receive path). Takes ownership of the frame.
class frame_sink_if {
 public:
  virtual ~frame_sink_if() = default;
  virtual void receive_frame(tlm::tlm_generic_payload* frame, int port_index) = 0;
};

class mac_port : public sc_core::sc_module, public timed_client {
 public:
  frame_out_socket<mac_port> tx;
  frame_in_socket<mac_port> rx;
  param<sc_core::sc_time> pfc_response;

  // param_prefix: where this port's parameters live ("sw0.port3"), usually its owner's name.
  mac_port(sc_core::sc_module_name name, int index, uint64_t mac_address, const std::string& param_prefix);

  void attach(frame_source_if* source, frame_sink_if* sink) {
    source_ = source;
    sink_ = sink;
  }
  void attach_link(const link* l) { link_ = l; }
  const link* attached_link() const { return link_; }
  int index() const { return index_; }
  uint64_t mac_address() const { return mac_; }

  // A frame became available, or a pause/rate limit may have lifted: transmit if idle.
  void kick();
  // Queues an 802.1Qbb frame ahead of data (it still waits for the frame on the wire).
  void send_pfc(const pfc_request& request);

  bool paused(int priority, uint64_t now_ps) const {
    const pause_state& s = pause_[priority];
    return s.from_ps <= now_ps && now_ps < s.until_ps;
  }
  uint64_t pause_end_ps(int priority) const { return pause_[priority].until_ps; }
  bool busy() const { return to_ps(sc_core::sc_time_stamp()) < busy_until_ps_; }

  // Statistics.
  uint64_t pfc_frames_sent() const { return pfc_sent_; }
  uint64_t pause_frames_received(int priority) const { return pause_[priority].xoff_frames; }
  uint64_t resume_frames_received(int priority) const { return pause_[priority].xon_frames; }
  uint64_t pfc_frames_received() const { return pfc_received_; }
  sc_core::sc_time paused_time(int priority, const sc_core::sc_time& now) const;
  uint64_t frames_sent() const { return frames_sent_; }

 private:
  struct pause_state {
    uint64_t from_ps = 0, until_ps = 0, closed_ps = 0;  // current interval; paused time before it
    uint64_t xoff_frames = 0, xon_frames = 0;
  };
  void try_send();
  void wake_at(uint64_t at_ps);  // try_send at at_ps, unless an earlier wake-up is pending
  void on_timer() override;
  tlm::tlm_sync_enum receive(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  void apply_pause(int priority, uint64_t effective_ps, uint64_t until_ps);

  int index_;
  uint64_t mac_;
  const link* link_ = nullptr;
  frame_source_if* source_ = nullptr;
  frame_sink_if* sink_ = nullptr;
  ring<tlm::tlm_generic_payload*> control_;
  std::array<pause_state, num_priorities> pause_{};
  uint64_t busy_until_ps_ = 0;  // end of the frame on the wire (END_REQ)
  event_queue& timers_;
  uint64_t pfc_sent_ = 0, pfc_received_ = 0, frames_sent_ = 0, pfc_merged_ = 0;
};

}  // namespace sluice
