// A NIC: flow sources behind per-flow rate limiters, a round-robin scheduler over the flows
// that may send, one MAC port that honours PFC from its switch, and a receiver that records
// bytes, throughput and flow completion times.
#pragma once
#include <array>
#include <functional>
#include <map>
#include <vector>

#include "models/core/params.h"
#include "models/nic/flow.h"
#include "models/nic/rate_limiter.h"
#include "models/protocol/mac_port.h"

namespace sluice {

class nic : public sc_core::sc_module, public frame_source_if, public frame_sink_if {
 public:
  param<byte_count> mtu;
  param<byte_count> header_bytes;
  mac_port port;

  nic(sc_core::sc_module_name name, uint32_t node_id, flow_table& flows);

  void add_flow(uint32_t flow_id);  // a flow this NIC sends
  // Called when a finite flow's last byte arrives here (e.g. to stop the run when all are done).
  void on_flow_complete(std::function<void(uint32_t flow_id)> hook) { completion_hook_ = std::move(hook); }
  // The flow's rate limiter, for congestion control to drive; valid for the whole run.
  rate_limiter_if& limiter(uint32_t flow_id);
  // Replaces the flow's default pacing limiter (e.g. with an RTL or firmware model); before
  // the flow starts sending.
  void bind_limiter(uint32_t flow_id, rate_limiter_if& replacement);
  uint32_t node_id() const { return node_id_; }
  uint64_t frames_received() const { return rx_frames_; }
  uint64_t misdelivered() const { return misdelivered_; }
  uint64_t frames_sent(int priority) const { return frames_sent_[priority]; }
  uint64_t bytes_sent(int priority) const { return bytes_sent_[priority]; }  // on the wire

  tlm::tlm_generic_payload* next_frame(const mac_port& port, uint64_t now_ps, uint64_t& retry_ps) override;
  uint64_t next_ready_ps(const mac_port& port, uint64_t now_ps) const override;
  void receive_frame(tlm::tlm_generic_payload* frame, int port_index) override;

 private:
  struct sender {
    uint32_t flow_id;
    rate_limiter_if* limiter;  // the default in limiters_, or a bound replacement
    uint64_t sent = 0;         // payload bytes handed to the MAC
  };
  // Earliest time the flow may send its next frame.
  uint64_t ready_ps(const sender& s, uint64_t now_ps) const;
  data_rate line_rate() const;

  uint32_t node_id_;
  flow_table& flows_;
  void start_of_simulation() override;
  void activate(uint64_t now_ps);  // moves flows whose start has come from pending_ to senders_
  uint64_t next_start_ps() const;  // start of the next pending flow, never_ps if none

  std::vector<sender> pending_;  // all flows by start time; [next_pending_, end) not started
  std::size_t next_pending_ = 0;
  std::vector<sender> senders_;                  // started flows with bytes left to send
  std::map<uint32_t, pacing_limiter> limiters_;  // by flow id; node-based, so references stay valid
  std::map<uint32_t, rate_limiter_if*> bound_limiters_;
  sender* find_sender(uint32_t flow_id);
  std::size_t next_ = 0;  // round-robin position
  uint64_t rx_frames_ = 0, misdelivered_ = 0;
  std::array<uint64_t, num_priorities> frames_sent_{}, bytes_sent_{};
  std::function<void(uint32_t)> completion_hook_;
};

}  // namespace sluice
